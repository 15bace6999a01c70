import { randomBytes } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../../activities';
import { webhookActivities } from '../../../activities/webhooks';
import type { Config } from '../../../src/config';
import { createDb } from '../../../src/db/knex';
import { registerSearchAttributes } from '../../../src/temporal/client';
import { suiteBundle } from '../../helpers/stubbed-workflow';
import { signBody, verifySignature } from '../../../src/webhooks/signing';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import { cancelDeliveryWorkflow, startDeliveryWorkflow } from '../../../src/webhooks/workflow-client';
import type { WebhookDeliveryResult } from '../../../workflows/webhook-delivery';
import type { TestDatabase } from '../../helpers/db';
import type { HttpsReceiver } from '../../helpers/https-receiver';
import { startDelivery, startDeliveryBed, stopDeliveryBed, type DeliveryBed } from './delivery-bed';
import { deliveryAttemptTimes, quietTemporalRuntime, seedDelivery, seedWebhook, waitUntil } from './fixtures';

/**
 * The delivery workflow on Temporal's time-skipping test server: real activities, real PostgreSQL,
 * a real HTTPS receiver on loopback; the 1/2/4/8-minute and 24-hour timers pass in skipped time.
 * How an attempt claims its number is in delivery-attempt-claims.test.ts.
 */
describe('webhookDeliveryWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let bed: DeliveryBed;
  let database: TestDatabase;
  let config: Config;
  let receiver: HttpsReceiver;
  let orgId: string;
  const taskQueue = `wh-ts-${randomBytes(4).toString('hex')}`;
  let deps: ActivityDeps;
  let bundle: WorkflowBundleOption;

  beforeAll(async () => {
    quietTemporalRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    // The test server knows no custom search attributes until told (the dev server gets start flags).
    await registerSearchAttributes(env.connection, env.namespace ?? 'default');
    bed = await startDeliveryBed();
    ({ database, config, receiver, orgId, deps } = bed);
    bundle = await suiteBundle();
  });
  afterAll(async () => {
    await stopDeliveryBed(bed);
    await env?.teardown();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  const newWorker = (): Promise<Worker> =>
    Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: createActivities(deps),
    });
  const start = (webhookId: string) => startDelivery(bed, env.client, taskQueue, webhookId);

  const record = (id: string) => database.db('webhook_deliveries').where({ id }).first();

  const attemptTimes = (workflowId: string) => deliveryAttemptTimes(env.client, workflowId);

  it(
    'retries after at least 1, 2, 4, 8 minutes, sends the same bytes and signature each time, ' + 'then dead-letters',
    async () => {
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
    },
  );

  it(
    'delivers on the third attempt after two failures (attempt_count 3) ' + 'to a receiver that verifies the HMAC',
    async () => {
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
    },
  );

  it(
    'dead-letters as `expired`, sending nothing more, ' + 'when attempts cannot run for 24 h after the first one',
    async () => {
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
    },
  );

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

  it(
    'crash drill (deterministic): an attempt re-run after its delivered outcome was recorded ' +
      'keeps it delivered and the workflow completes',
    async () => {
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
    },
  );
});
