import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../../activities';
import { webhookActivities, type AttemptInput } from '../../../activities/webhooks';
import type { Config } from '../../../src/config';
import { recoverPage } from '../../../src/webhooks/recoveries/run';
import { verifySignature } from '../../../src/webhooks/signing';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/https-receiver';
import { activityDepsFor, seedDelivery, seedOrg, seedWebhook, webhookTestConfig } from './fixtures';

/**
 * The attempt activity on its own (MockActivityEnvironment): real PostgreSQL, a real HTTPS receiver, no Temporal
 * server.
 */
describe('attemptWebhookDelivery activity', () => {
  let database: TestDatabase;
  let config: Config;
  let receiver: HttpsReceiver;
  let deps: ActivityDeps;
  let orgId: string;
  const env = new MockActivityEnvironment();

  beforeAll(async () => {
    database = await freshDatabase();
    config = await webhookTestConfig();
    receiver = await startHttpsReceiver();
    deps = activityDepsFor(database.db, config);
    orgId = await seedOrg(database.db);
  });
  afterAll(async () => {
    await deps?.http.close();
    await receiver?.close();
    await database?.drop();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  const attempts = (outcome: string) =>
    deps.metrics.webhookAttempts
      .get()
      .then((m) => m.values.find((v) => v.labels.outcome === outcome && v.labels.kind === 'delivery')?.value ?? 0);
  const input = (deliveryId: string, attempt = 1): AttemptInput => {
    const now = new Date().toISOString();
    return { deliveryId, webhookId: 'guard-key', attempt, attemptedAt: now, firstAttemptAt: now, retryDelayMs: 60_000 };
  };
  const record = (id: string) => database.db('webhook_deliveries').where({ id }).first();

  it('sends one signed POST, records it delivered and counts it', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/ok`);
    receiver.handle((_r, res) => void res.end('ok'));
    const d = await seedDelivery(database.db, hook.id, orgId);
    const before = await attempts('delivered');
    const out = await env.run(webhookActivities(deps).attemptWebhookDelivery, input(d.id));
    expect(out).toMatchObject({ kind: 'attempted', ok: true, httpStatus: 200, errorMessage: null });
    expect(receiver.requests).toHaveLength(1);
    expect(
      verifySignature(
        receiver.requests[0]!.raw,
        hook.secret,
        receiver.requests[0]!.headers['x-service-signature'] as string,
      ),
    ).toBe(true);
    expect(await record(d.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      outcome_attempt: 1,
      http_status: 200,
    });
    expect(await attempts('delivered')).toBe(before + 1);
  });

  it(
    'run again for an attempt already recorded delivered: stays delivered, ' + 'nothing sent, nothing counted',
    async () => {
      const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/again`);
      receiver.handle((_r, res) => void res.end('ok'));
      const d = await seedDelivery(database.db, hook.id, orgId);
      const acts = webhookActivities(deps);
      await env.run(acts.attemptWebhookDelivery, input(d.id));
      const recorded = await record(d.id);
      const counts = [await attempts('delivered'), await attempts('interrupted')];
      const again = await env.run(acts.attemptWebhookDelivery, input(d.id));
      expect(again).toMatchObject({ kind: 'attempted', ok: true, httpStatus: 200 });
      expect(receiver.requests).toHaveLength(1);
      expect(await record(d.id)).toMatchObject({
        status: 'delivered',
        error_message: null,
        delivered_at: recorded.delivered_at,
      });
      expect([await attempts('delivered'), await attempts('interrupted')]).toEqual(counts);
    },
  );

  it('a disabled webhook stops the delivery without sending', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/off`, { isActive: false });
    const d = await seedDelivery(database.db, hook.id, orgId);
    const out = await env.run(webhookActivities(deps).attemptWebhookDelivery, input(d.id));
    expect(out).toEqual({ kind: 'stopped', reason: 'webhook_disabled' });
    expect(receiver.requests).toHaveLength(0);
    expect(await record(d.id)).toMatchObject({ status: 'cancelled', stop_reason: 'webhook_disabled' });
  });

  it(
    'a recovery attempt takes the place of a waiting retry: ' +
      'the workflow’s next attempt adopts it and sends nothing',
    async () => {
      const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/merge`);
      receiver.handle((_r, res) => void res.end('ok'));
      const d = await seedDelivery(database.db, hook.id, orgId);
      const retryAt = new Date(Date.now() + 60_000);
      await database
        .db('webhook_deliveries')
        .where({ id: d.id })
        .update({ status: 'failed', attempt_count: 1, outcome_attempt: 1, next_retry_at: retryAt });
      const [rec] = await database
        .db('webhook_recoveries')
        .insert({
          id: randomUUID(),
          webhook_id: hook.id,
          org_id: orgId,
          since: new Date(Date.now() - 60_000),
          until: new Date(Date.now() + 1_000),
          statuses: ['failed'],
          workflow_id: 'w',
        })
        .returning('id');
      const page = await recoverPage(
        deps,
        { recoveryId: rec.id, cursor: null, limit: 10 },
        new AbortController().signal,
        () => undefined,
      );
      expect(page).toMatchObject({ count: 1, done: true });
      expect(await record(d.id)).toMatchObject({
        status: 'delivered',
        attempt_count: 2,
        outcome_attempt: 2,
        next_retry_at: null,
      });
      const out = await env.run(webhookActivities(deps).attemptWebhookDelivery, input(d.id, 2));
      expect(out).toMatchObject({ kind: 'attempted', ok: true });
      expect(receiver.requests).toHaveLength(1);
      const history = await database.db('webhook_delivery_attempts').where({ delivery_id: d.id }).orderBy('number');
      expect(history.map((a) => [a.number, a.source, a.recovery_id])).toEqual([[2, 'recovery', rec.id]]);
    },
  );

  it('counts an attempt claimed without a recorded outcome as interrupted', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/cut`);
    const d = await seedDelivery(database.db, hook.id, orgId);
    await database.db('webhook_deliveries').where({ id: d.id }).update({ attempt_count: 1 });
    const before = await attempts('interrupted');
    const out = await env.run(webhookActivities(deps).attemptWebhookDelivery, input(d.id));
    expect(out).toMatchObject({ kind: 'attempted', ok: false, errorMessage: expect.stringMatching(/interrupted/) });
    expect(await attempts('interrupted')).toBe(before + 1);
  });
});
