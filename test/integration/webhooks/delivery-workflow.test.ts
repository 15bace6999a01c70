import { randomBytes } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../../activities';
import { webhookActivities } from '../../../activities/webhooks';
import type { Config } from '../../../src/config';
import { createDb } from '../../../src/db/knex';
import { registerSearchAttributes } from '../../../src/temporal/client';
import { workflowBundle } from '../../../src/temporal/worker';
import { signBody, verifySignature } from '../../../src/webhooks/signing';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import { cancelDeliveryWorkflow, startDeliveryWorkflow } from '../../../src/webhooks/workflow-client';
import type { WebhookDeliveryResult } from '../../../workflows/webhook-delivery';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/https-receiver';
import {
  activityDepsFor,
  quietTemporalRuntime,
  seedDelivery,
  seedOrg,
  seedWebhook,
  waitUntil,
  webhookTestConfig,
} from './fixtures';

/**
 * The delivery workflow on Temporal's time-skipping test server: real activities, real PostgreSQL,
 * a real HTTPS receiver on loopback; the 1/2/4/8-minute and 24-hour timers pass in skipped time.
 */
describe('webhookDeliveryWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let database: TestDatabase;
  let config: Config;
  let receiver: HttpsReceiver;
  let orgId: string;
  const taskQueue = `wh-ts-${randomBytes(4).toString('hex')}`;
  let deps: ActivityDeps;
  let bundle: WorkflowBundleWithSourceMap;

  beforeAll(async () => {
    quietTemporalRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    // The test server knows no custom search attributes until told (the dev server gets start flags).
    await registerSearchAttributes(env.connection, env.namespace ?? 'default');
    database = await freshDatabase();
    config = await webhookTestConfig();
    receiver = await startHttpsReceiver();
    orgId = await seedOrg(database.db);
    deps = activityDepsFor(database.db, config);
    bundle = await workflowBundle();
  });
  afterAll(async () => {
    await deps?.http.close();
    await receiver?.close();
    await database?.drop();
    await env?.teardown();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  async function newWorker(opts: { maxCachedWorkflows?: number } = {}): Promise<Worker> {
    return Worker.create({
      ...opts,
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: createActivities(deps),
    });
  }

  async function start(webhookId: string, eventType = 'trace.completed') {
    const d = await seedDelivery(database.db, webhookId, orgId, eventType);
    await startDeliveryWorkflow(env.client, taskQueue, { id: d.id, webhookId, orgId, eventType, url: receiver.url });
    return {
      ...d,
      handle: env.client.workflow.getHandle<() => Promise<WebhookDeliveryResult>>(deliveryWorkflowId(d.id)),
    };
  }

  const record = (id: string) => database.db('webhook_deliveries').where({ id }).first();

  /** Times (skipped clock) at which each delivery attempt (a local activity marker in history) was recorded. */
  async function attemptTimes(workflowId: string): Promise<number[]> {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? [])
      .filter((e) => {
        const marker = e.markerRecordedEventAttributes;
        if (marker?.markerName !== 'core_local_activity') return false;
        const data = JSON.parse(Buffer.from(marker.details!.data!.payloads![0]!.data!).toString()) as {
          activity_type?: string;
          activityType?: string;
        };
        return (data.activity_type ?? data.activityType) === 'attemptWebhookDelivery';
      })
      .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6));
  }

  it('retries after at least 1, 2, 4, 8 minutes, sends the same bytes and signature each time, then dead-letters', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/fail`);
    const seen: Record<string, unknown>[] = [];
    receiver.handle(async (_req, res) => {
      // What the record says while the next attempt is being made.
      seen.push(await database.db('webhook_deliveries').where({ webhook_id: hook.id }).first());
      res.statusCode = 500;
      res.end('nope');
    });
    const d = await start(hook.id);
    const worker = await newWorker();
    const result = await worker.runUntil(d.handle.result());

    expect(result).toEqual({ status: 'dead_lettered', attempts: 5, dlqReason: 'max_attempts' });
    expect(receiver.requests).toHaveLength(5);
    for (const r of receiver.requests) {
      expect(r.raw.toString()).toBe(d.body);
      expect(r.headers['x-service-delivery-id']).toBe(d.id);
      expect(r.headers['x-service-signature']).toBe(signBody(d.body, hook.secret));
      expect(r.headers['content-type']).toBe('application/json');
    }

    const times = await attemptTimes(deliveryWorkflowId(d.id));
    expect(times).toHaveLength(5);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    [1, 2, 4, 8].forEach((minutes, i) => expect(gaps[i]).toBeGreaterThanOrEqual(minutes * 60_000));
    // ...and not absurdly later (the schedule is 1, 2, 4, 8 minutes, not hours).
    gaps.forEach((g, i) => expect(g).toBeLessThan([1, 2, 4, 8][i]! * 60_000 + 60_000));

    // While retry n was pending, the record said failed with next_retry_at after the previous attempt.
    seen.slice(1).forEach((snap, i) => {
      expect(snap).toMatchObject({
        status: 'failed',
        attempt_count: i + 2,
        http_status: 500,
        error_message: 'HTTP 500',
      });
      const wait = (snap.next_retry_at as Date).getTime() - (snap.last_attempt_at as Date).getTime();
      expect(wait).toBeGreaterThanOrEqual([1, 2, 4, 8][i]! * 60_000);
    });

    const final = await record(d.id);
    expect(final).toMatchObject({
      status: 'dead_lettered',
      attempt_count: 5,
      http_status: 500,
      error_message: 'HTTP 500',
      next_retry_at: null,
      dlq_reason: 'max_attempts',
      delivered_at: null,
    });
    expect(final.dlq_at).toBeInstanceOf(Date);
    expect(typeof final.duration_ms).toBe('number');
  });

  it('delivers on the third attempt after two failures (attempt_count 3) to a receiver that verifies the HMAC', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/flaky`);
    receiver.handle((req, res, n) => {
      if (!verifySignature(req.raw, hook.secret, req.headers['x-service-signature'] as string)) {
        res.statusCode = 401;
        return void res.end('bad signature');
      }
      res.statusCode = n <= 2 ? 503 : 200;
      res.end();
    });
    const d = await start(hook.id);
    const worker = await newWorker();
    expect(await worker.runUntil(d.handle.result())).toEqual({ status: 'delivered', attempts: 3 });
    const rec = await record(d.id);
    expect(rec).toMatchObject({
      status: 'delivered',
      attempt_count: 3,
      http_status: 200,
      error_message: null,
      next_retry_at: null,
      dlq_at: null,
    });
    expect(rec.delivered_at).toBeInstanceOf(Date);
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-delivery-id']))).toEqual(new Set([d.id]));
  });

  it('dead-letters as `expired`, sending nothing more, when attempts cannot run for 24 h after the first one', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/expire`);
    receiver.handle((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    // After the first attempt the worker loses its database (a real refused connection): every
    // later attempt fails before sending and Temporal retries it until the delivery expires.
    const deadDb = createDb('postgres://postgres@127.0.0.1:1/unreachable', 1);
    const good = createActivities(deps);
    const down = createActivities({ ...deps, db: deadDb });
    let attempts = 0;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: {
        ...good,
        attemptWebhookDelivery: (input: Parameters<typeof good.attemptWebhookDelivery>[0]) =>
          (++attempts === 1 ? good : down).attemptWebhookDelivery(input),
      },
    });
    const d = await start(hook.id);
    try {
      expect(await worker.runUntil(d.handle.result())).toEqual({
        status: 'dead_lettered',
        attempts: 1,
        dlqReason: 'expired',
      });
    } finally {
      await deadDb.destroy();
    }
    expect(receiver.requests).toHaveLength(1);
    expect(attempts).toBeGreaterThan(2);
    const rec = await record(d.id);
    expect(rec).toMatchObject({
      status: 'dead_lettered',
      dlq_reason: 'expired',
      attempt_count: 1,
      next_retry_at: null,
      http_status: 500,
    });
    expect(rec.dlq_at.getTime() - rec.first_attempt_at.getTime()).toBeGreaterThanOrEqual(24 * 3600_000);
  });

  it('stops retrying at once when the webhook is disabled and its workflow cancelled', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/disable`);
    receiver.handle((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    const d = await start(hook.id);
    const worker = await newWorker();
    await worker.runUntil(async () => {
      await waitUntil(async () => (await record(d.id))?.status === 'failed', 20_000, 'first attempt recorded');
      await database.db('webhooks').where({ id: hook.id }).update({ is_active: false });
      await cancelDeliveryWorkflow(env.client, d.id);
      await expect(d.handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    });
    expect(receiver.requests).toHaveLength(1);
    expect(await record(d.id)).toMatchObject({
      status: 'cancelled',
      stop_reason: 'webhook_disabled',
      next_retry_at: null,
      attempt_count: 1,
    });
    expect((await d.handle.describe()).status.name).toBe('CANCELLED');
  });

  it('stops at the next retry, sending nothing, when the webhook was deleted (even without a cancel)', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/delete`);
    receiver.handle((_r, res) => {
      res.statusCode = 502;
      res.end();
    });
    const d = await start(hook.id);
    const worker = await newWorker();
    const result = await worker.runUntil(async () => {
      await waitUntil(async () => (await record(d.id))?.status === 'failed', 20_000, 'first attempt recorded');
      await database.db('webhooks').where({ id: hook.id }).update({ deleted_at: new Date() });
      return d.handle.result();
    });
    expect(result).toEqual({ status: 'cancelled', attempts: 1, stopReason: 'webhook_deleted' });
    expect(receiver.requests).toHaveLength(1);
    expect(await record(d.id)).toMatchObject({
      status: 'cancelled',
      stop_reason: 'webhook_deleted',
      next_retry_at: null,
    });
  });

  it('an infrastructure retry of an attempt cannot send twice (the attempt number is claimed first)', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/claim`);
    receiver.handle((_r, res) => void res.end());
    const d = await seedDelivery(database.db, hook.id, orgId);
    const acts = webhookActivities(deps);
    const input = {
      deliveryId: d.id,
      webhookId: hook.id,
      attempt: 1,
      attemptedAt: new Date().toISOString(),
      firstAttemptAt: new Date().toISOString(),
      retryDelayMs: 60_000,
    };
    const first = await acts.attemptWebhookDelivery(input);
    const again = await acts.attemptWebhookDelivery(input);
    expect(first).toMatchObject({ kind: 'attempted', ok: true, httpStatus: 200 });
    // Issue 11 §5: the re-run finds this attempt's outcome recorded; a delivered record stays delivered.
    expect(again).toMatchObject({ kind: 'attempted', ok: true, httpStatus: 200, errorMessage: null });
    expect(receiver.requests).toHaveLength(1);
    expect(await record(d.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      http_status: 200,
      error_message: null,
    });
  });

  it('records an attempt as interrupted only when it was claimed and no outcome was recorded', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/interrupted`);
    const d = await seedDelivery(database.db, hook.id, orgId);
    // The worker claimed attempt 1 and died before sending or recording anything.
    await database.db('webhook_deliveries').where({ id: d.id }).update({ attempt_count: 1 });
    const input = {
      deliveryId: d.id,
      webhookId: hook.id,
      attempt: 1,
      attemptedAt: new Date().toISOString(),
      firstAttemptAt: new Date().toISOString(),
      retryDelayMs: 60_000,
    };
    const out = await webhookActivities(deps).attemptWebhookDelivery(input);
    expect(out).toMatchObject({
      kind: 'attempted',
      ok: false,
      httpStatus: null,
      errorMessage: expect.stringMatching(/interrupted/),
    });
    expect(receiver.requests).toHaveLength(0);
    expect(await record(d.id)).toMatchObject({
      status: 'failed',
      attempt_count: 1,
      error_message: expect.stringMatching(/interrupted/),
    });
  });

  it('crash drill (deterministic): an attempt re-run after its delivered outcome was recorded keeps it delivered and the workflow completes', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/drill`);
    receiver.handle((_r, res) => void res.end('ok'));
    const d = await seedDelivery(database.db, hook.id, orgId);
    // Attempt 1 ran to the end (receiver answered 200, outcome recorded) on a worker that then died
    // before its workflow task completed: the restarted workflow runs attempt 1 again.
    const now = new Date().toISOString();
    await webhookActivities(deps).attemptWebhookDelivery({
      deliveryId: d.id,
      webhookId: hook.id,
      attempt: 1,
      attemptedAt: now,
      firstAttemptAt: now,
      retryDelayMs: 60_000,
    });
    expect(receiver.requests).toHaveLength(1);
    const delivered = await record(d.id);

    await startDeliveryWorkflow(env.client, taskQueue, {
      id: d.id,
      webhookId: hook.id,
      orgId,
      eventType: 'trace.completed',
      url: receiver.url,
    });
    const handle = env.client.workflow.getHandle<() => Promise<WebhookDeliveryResult>>(deliveryWorkflowId(d.id));
    const worker = await newWorker();
    expect(await worker.runUntil(handle.result())).toEqual({ status: 'delivered', attempts: 1 });
    expect(receiver.requests).toHaveLength(1);
    const after = await record(d.id);
    expect(after).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      http_status: 200,
      error_message: null,
      next_retry_at: null,
    });
    expect(after.delivered_at).toEqual(delivered.delivered_at);
  });
});
