import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../../activities';
import { webhookActivities, type AttemptInput } from '../../../activities/webhooks';
import type { Principal } from '../../../src/auth/principal';
import type { Config } from '../../../src/config';
import { registerSearchAttributes } from '../../../src/temporal/client';
import { suiteBundle } from '../../helpers/stubbed-workflow';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import { recoverPage } from '../../../src/webhooks/recoveries/run';
import { rotateSecret, type WebhookDeps } from '../../../src/webhooks/service';
import { signBody } from '../../../src/webhooks/signing';
import { startDeliveryWorkflow } from '../../../src/webhooks/workflow-client';
import type { WebhookDeliveryResult } from '../../../workflows/webhook-delivery';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/https-receiver';
import {
  activityDepsFor,
  quietTemporalRuntime,
  seedDelivery,
  seedOrg,
  seedWebhook,
  webhookTestConfig,
} from './fixtures';

/** `v1,<base64 HMAC-SHA256 of "<id>.<ts>.<raw body>">` keyed with the secret's characters. */
const v1 = (secret: string, id: string, ts: string, raw: Buffer) =>
  `v1,${createHmac('sha256', secret).update(`${id}.${ts}.`).update(raw).digest('base64')}`;

/**
 * Auto-disable of failing endpoints and secrets read at attempt time, through the delivery
 * workflow on Temporal's time-skipping server (real activities, PostgreSQL and HTTPS receiver),
 * and the window rule through the attempt activity on its own.
 */
describe('auto-disable and rotation during retries', () => {
  let env: TestWorkflowEnvironment;
  let database: TestDatabase;
  let config: Config;
  let receiver: HttpsReceiver;
  let orgId: string;
  const taskQueue = `wh-ad-${randomBytes(4).toString('hex')}`;
  let deps: ActivityDeps;
  let bundle: WorkflowBundleOption;

  beforeAll(async () => {
    quietTemporalRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    await registerSearchAttributes(env.connection, env.namespace ?? 'default');
    database = await freshDatabase();
    // Two dead-lettered deliveries in a row, no minimum duration (the database clock does not skip).
    config = await webhookTestConfig({ WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '2', WEBHOOK_AUTO_DISABLE_AFTER_S: '0' });
    receiver = await startHttpsReceiver();
    orgId = await seedOrg(database.db);
    deps = activityDepsFor(database.db, config);
    bundle = await suiteBundle();
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

  const newWorker = () =>
    Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: createActivities(deps),
    });
  /** One delivery's workflow to its end, on a worker of its own (a worker runs once). */
  async function run(webhookId: string): Promise<WebhookDeliveryResult> {
    const d = await seedDelivery(database.db, webhookId, orgId);
    const start = { id: d.id, webhookId, orgId, eventType: 'trace.completed', url: receiver.url };
    await startDeliveryWorkflow(env.client, taskQueue, start);
    const handle = env.client.workflow.getHandle<() => Promise<WebhookDeliveryResult>>(deliveryWorkflowId(d.id));
    return (await newWorker()).runUntil(handle.result());
  }
  const hookRow = (id: string) => database.db('webhooks').where({ id }).first();

  it('disables the webhook after the configured dead-letters in a row; its next delivery stops unsent', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/down`);
    receiver.handle((_r, res) => {
      res.statusCode = 503;
      res.end('down');
    });
    expect(await run(hook.id)).toMatchObject({ status: 'dead_lettered', attempts: 5 });
    expect(await hookRow(hook.id)).toMatchObject({ is_active: true, consecutive_failures: 1, disabled_reason: null });
    expect(await run(hook.id)).toMatchObject({ status: 'dead_lettered', attempts: 5 });
    const off = await hookRow(hook.id);
    expect(off).toMatchObject({ is_active: false, disabled_reason: 'failing', consecutive_failures: 2 });
    expect(off.disabled_at).toBeInstanceOf(Date);
    const audit = await database.db('audit_logs').where({ resource_id: hook.id });
    expect(audit.map((a) => [a.action, a.actor_type])).toEqual([['webhook.auto_disabled', 'system']]);

    receiver.requests.length = 0;
    expect(await run(hook.id)).toMatchObject({ status: 'cancelled', stopReason: 'webhook_disabled' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('a delivered attempt ends the streak', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/flaky`);
    receiver.handle((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    await run(hook.id);
    expect(await hookRow(hook.id)).toMatchObject({ consecutive_failures: 1, failing_since: expect.any(Date) });
    receiver.handle((_r, res) => void res.end('ok'));
    expect(await run(hook.id)).toMatchObject({ status: 'delivered' });
    expect(await hookRow(hook.id)).toMatchObject({ is_active: true, consecutive_failures: 0, failing_since: null });
  });

  it('a retry signs with the secrets current at its attempt (rotated after the first)', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/rotating`);
    const actor: Principal = { kind: 'user', userId: 'u-1', sub: 's', email: null, orgId, role: 'admin' };
    let rotated = '';
    receiver.handle(async (_r, res, n) => {
      if (n === 1) {
        const service = { db: database.db, keyring: deps.keyring } as WebhookDeps;
        rotated = (await rotateSecret(service, actor, hook.id, { previous_expires_in_seconds: 600 })).secret;
        res.statusCode = 500;
        return void res.end();
      }
      res.end('ok');
    });
    expect(await run(hook.id)).toEqual({ status: 'delivered', attempts: 2 });
    const [first, second] = receiver.requests;
    const sig = (r: typeof first, s: string) =>
      v1(s, r!.headers['webhook-id'] as string, r!.headers['webhook-timestamp'] as string, r!.raw);
    expect(first!.headers['webhook-signature']).toBe(sig(first, hook.secret));
    expect(first!.headers['x-service-signature']).toBe(signBody(first!.raw, hook.secret));
    expect(second!.headers['webhook-signature']).toBe(`${sig(second, rotated)} ${sig(second, hook.secret)}`);
    expect(second!.headers['x-service-signature']).toBe(signBody(second!.raw, rotated));
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
  });

  it('a delivered recovery attempt ends the streak too', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/recovered`);
    receiver.handle((_r, res) => void res.end('ok'));
    const streak = { consecutive_failures: 7, failing_since: new Date(Date.now() - 3_600_000) };
    await database.db('webhooks').where({ id: hook.id }).update(streak);
    const d = await seedDelivery(database.db, hook.id, orgId);
    await database.db('webhook_deliveries').where({ id: d.id }).update({ status: 'dead_lettered', attempt_count: 5 });
    const since = new Date(Date.now() - 60_000);
    const window = { since, until: new Date(Date.now() + 1_000), statuses: ['dead_lettered'] };
    const [rec] = await database
      .db('webhook_recoveries')
      .insert({ id: randomUUID(), webhook_id: hook.id, org_id: orgId, ...window, workflow_id: 'w' })
      .returning('id');
    const input = { recoveryId: rec.id, cursor: null, limit: 10 };
    const page = await recoverPage(deps, input, new AbortController().signal, () => undefined);
    expect(page).toMatchObject({ count: 1 });
    expect(await hookRow(hook.id)).toMatchObject({ consecutive_failures: 0, failing_since: null });
  });

  describe('the window (attempt activity alone)', () => {
    const mock = new MockActivityEnvironment();
    const lastAttempt = (deliveryId: string, webhookId: string): AttemptInput => {
      const now = new Date().toISOString();
      return { deliveryId, webhookId, attempt: 1, attemptedAt: now, firstAttemptAt: now, retryDelayMs: null };
    };

    it('needs both the count and the time since the first dead-letter; 0 failures turns it off', async () => {
      const rule = { WEBHOOK_AUTO_DISABLE_MIN_FAILURES: 3, WEBHOOK_AUTO_DISABLE_AFTER_S: 3600 };
      const windowed = { ...deps, config: { ...config, ...rule } };
      const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/window`);
      receiver.handle((_r, res) => {
        res.statusCode = 500;
        res.end();
      });
      const deadLetter = async (d: ActivityDeps) => {
        const { id } = await seedDelivery(database.db, hook.id, orgId);
        const out = await mock.run(webhookActivities(d).attemptWebhookDelivery, lastAttempt(id, hook.id));
        expect(out).toMatchObject({ ok: false });
        expect((await database.db('webhook_deliveries').where({ id }).first()).status).toBe('dead_lettered');
      };
      for (let i = 0; i < 4; i++) await deadLetter(windowed);
      // Four in a row, but failing for seconds, not an hour: still active.
      expect(await hookRow(hook.id)).toMatchObject({ is_active: true, consecutive_failures: 4 });
      const twoHoursAgo = database.db.raw(`now() - interval '2 hours'`);
      await database.db('webhooks').where({ id: hook.id }).update({ failing_since: twoHoursAgo });
      await deadLetter({ ...windowed, config: { ...windowed.config, WEBHOOK_AUTO_DISABLE_MIN_FAILURES: 0 } });
      expect(await hookRow(hook.id)).toMatchObject({ is_active: true, consecutive_failures: 4 });
      await deadLetter(windowed);
      const off = await hookRow(hook.id);
      expect(off).toMatchObject({ is_active: false, disabled_reason: 'failing', consecutive_failures: 5 });
    });
  });
});
