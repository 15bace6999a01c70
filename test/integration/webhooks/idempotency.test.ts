import { randomUUID } from 'node:crypto';
import { requestFingerprint } from '../../../src/http/idempotency';
import { retentionWorkflow } from '../../../workflows';
import { startTestApp, type TestApp } from '../../helpers/app';
import { seedTenant, type SeededTenant } from '../../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { seedFinishedDeliveries, seedWebhook, waitUntil } from './fixtures';

/** The envelope of the POST answers these tests read (a recovery or a redelivery, or an error). */
interface Answer {
  success: boolean;
  code?: string;
  error?: string;
  data: { id: string; redelivery: number } & Record<string, unknown>;
}

/**
 * Idempotency-Key on redeliver and recover (docs/webhooks.md "Idempotency keys"), on the real
 * service, PostgreSQL and the suite's Temporal dev server: a repeat answers the first answer
 * without doing the work again; another request under the same key is 422.
 */
describe('Idempotency-Key on operator actions', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let receiver: HttpsReceiver;
  const db = () => app.runtime.ctx.db;
  const hour = 3600_000;

  beforeAll(async () => {
    const { caFile } = await testCertificates();
    receiver = await startHttpsReceiver();
    receiver.handle((_r, res) => void res.end('ok'));
    const env = {
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_DISPATCH_POLL_MS: '60000',
    };
    app = await startTestApp({ role: 'all', env });
    [t, other] = [await seedTenant(app), await seedTenant(app)];
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  /** A POST as the tenant's editor with an optional key; answers status, body and the replay header. */
  const post = async (path: string, key: string | undefined, body?: unknown, tenant = t) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${tenant.editor.token}`,
      'x-organization-id': tenant.orgId,
    };
    if (key !== undefined) headers['idempotency-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const res = await fetch(`${app.url}${path}`, { method: 'POST', headers, body: payload });
    return { status: res.status, body: (await res.json()) as Answer, replayed: res.headers.get('idempotent-replayed') };
  };
  const deadDelivery = async (path: string, tenant = t) => {
    const hook = await seedWebhook(db(), app.config, tenant.orgId, `${receiver.url}${path}`);
    const [d] = await seedFinishedDeliveries(db(), hook.id, tenant.orgId, 1);
    return { hookId: hook.id, deliveryId: d!.id };
  };
  const redeliverPath = (d: { hookId: string; deliveryId: string }) =>
    `/api/v1/webhooks/${d.hookId}/deliveries/${d.deliveryId}/redeliver`;
  const settledRecord = (id: string) =>
    waitUntil(
      async () => {
        const r = await db()('webhook_deliveries').where({ id }).first();
        return r && r.status !== 'pending' ? r : undefined;
      },
      20_000,
      `delivery ${id} settled`,
    );

  it('redeliver: a repeat answers the first 202, no second run; another delivery under the key is 422', async () => {
    const { hookId, deliveryId } = await deadDelivery('/idem-redeliver');
    const path = `/api/v1/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`;
    const key = `redeliver-${randomUUID()}`;
    const first = await post(path, key);
    expect(first.status).toBe(202);
    expect(first.replayed).toBeNull();
    expect(first.body.data).toMatchObject({ delivery_id: deliveryId, redelivery: 1 });
    await settledRecord(deliveryId);

    // The run has ended: without a key this would start run 2; with the key it is the first answer.
    const again = await post(path, key);
    expect(again).toEqual({ status: 202, body: first.body, replayed: 'true' });
    const row = await db()('webhook_deliveries').where({ id: deliveryId }).first();
    expect(row.redeliveries).toBe(1);
    const audited = await db()('audit_logs').where({ resource_id: deliveryId, action: 'webhook_delivery.redelivered' });
    expect(audited).toHaveLength(1);
    expect(receiver.requests.filter((r) => r.path === '/idem-redeliver')).toHaveLength(1);

    const otherDelivery = await deadDelivery('/idem-redeliver-2');
    const reused = await post(redeliverPath(otherDelivery), key);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ success: false, code: 'idempotency_key_reused' });
    expect((await db()('webhook_deliveries').where({ id: otherDelivery.deliveryId }).first()).redeliveries).toBe(0);

    // Another organization's key space is its own.
    const theirs = await deadDelivery('/idem-other-org', other);
    const elsewhere = await post(redeliverPath(theirs), key, undefined, other);
    expect(elsewhere.status).toBe(202);
    expect(elsewhere.replayed).toBeNull();
  });

  it('recover: a repeat answers the same recovery; a different body under the key is 422', async () => {
    const hook = await seedWebhook(db(), app.config, t.orgId, `${receiver.url}/idem-recover`);
    await seedFinishedDeliveries(db(), hook.id, t.orgId, 3, { createdAt: new Date(Date.now() - hour) });
    const body = { since: new Date(Date.now() - 2 * hour).toISOString(), statuses: ['dead_lettered'] };
    const key = `recover-${randomUUID()}`;
    const first = await post(`/api/v1/webhooks/${hook.id}/recover`, key, body);
    expect(first.status).toBe(202);
    // The same body with its keys in another order is the same request.
    const recoverPath = `/api/v1/webhooks/${hook.id}/recover`;
    const again = await post(recoverPath, key, { statuses: body.statuses, since: body.since });
    expect(again).toEqual({ status: 202, body: first.body, replayed: 'true' });
    expect(await db()('webhook_recoveries').where({ webhook_id: hook.id })).toHaveLength(1);

    const recovery = () => db()('webhook_recoveries').where({ id: first.body.data.id }).first();
    const finished = async () => (await recovery()).status !== 'running';
    await waitUntil(finished, 30_000, 'recovery done');
    const changed = await post(`/api/v1/webhooks/${hook.id}/recover`, key, { ...body, statuses: ['failed'] });
    expect(changed.status).toBe(422);
    expect(changed.body.code).toBe('idempotency_key_reused');
    expect(await db()('webhook_recoveries').where({ webhook_id: hook.id })).toHaveLength(1);
    // Without a key the action runs as before.
    expect((await post(`/api/v1/webhooks/${hook.id}/recover`, undefined, body)).status).toBe(202);
    expect(await db()('webhook_recoveries').where({ webhook_id: hook.id })).toHaveLength(2);
  });

  it('a failed call keeps nothing: the same key can be retried and then does the work', async () => {
    const hook = await seedWebhook(db(), app.config, t.orgId, `${receiver.url}/idem-retry`);
    const key = `retry-${randomUUID()}`;
    const bad = await post(`/api/v1/webhooks/${hook.id}/recover`, key, { since: new Date(Date.now() + hour) });
    expect(bad.status).toBe(400);
    expect(await db()('idempotency_keys').where({ org_id: t.orgId, key })).toHaveLength(0);
    const missing = await post(`/api/v1/webhooks/${randomUUID()}/deliveries/${randomUUID()}/redeliver`, key);
    expect(missing.status).toBe(404);
    const ok = await post(`/api/v1/webhooks/${hook.id}/recover`, key, { since: new Date(Date.now() - hour) });
    expect(ok.status).toBe(202);
    expect(ok.replayed).toBeNull();
  });

  it('a call still running under the key is 409 idempotency_key_in_progress', async () => {
    const { hookId, deliveryId } = await deadDelivery('/idem-busy');
    const path = `/api/v1/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`;
    const key = `busy-${randomUUID()}`;
    // As the first call leaves it while it works: claimed, no answer yet.
    const fingerprint = requestFingerprint({ method: 'POST', originalUrl: path, body: undefined });
    const expires_at = new Date(Date.now() + 24 * hour);
    await db()('idempotency_keys').insert({ org_id: t.orgId, key, fingerprint, expires_at });
    const busy = await post(path, key);
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('idempotency_key_in_progress');
    expect((await db()('webhook_deliveries').where({ id: deliveryId }).first()).redeliveries).toBe(0);
  });

  it('concurrent calls with one key do the work once', async () => {
    const { hookId, deliveryId } = await deadDelivery('/idem-race');
    const path = `/api/v1/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`;
    const key = `race-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(path, key)));
    expect(answers.filter((a) => a.status === 202 && a.replayed === null)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 202)) expect(a.body.code).toBe('idempotency_key_in_progress');
    expect((await db()('webhook_deliveries').where({ id: deliveryId }).first()).redeliveries).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not printable ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('refuses a malformed key (%s) with 400 and does nothing', async (_what, key) => {
    const { hookId, deliveryId } = await deadDelivery(`/idem-bad-${randomUUID()}`);
    const res = await post(`/api/v1/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`, key);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_error' });
    expect(res.body.error).toMatch(/header\.Idempotency-Key/);
    expect((await db()('webhook_deliveries').where({ id: deliveryId }).first()).redeliveries).toBe(0);
  });

  it('a key past 24 h is free again, and the daily retention run deletes expired keys', async () => {
    const { hookId, deliveryId } = await deadDelivery('/idem-expired');
    const path = `/api/v1/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`;
    const key = `expired-${randomUUID()}`;
    expect((await post(path, key)).status).toBe(202);
    await settledRecord(deliveryId);
    await db()('idempotency_keys')
      .where({ org_id: t.orgId, key })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const fresh = await post(path, key);
    expect(fresh.status).toBe(202);
    expect(fresh.replayed).toBeNull();
    expect(fresh.body.data.redelivery).toBe(2);
    await settledRecord(deliveryId);

    await db()('idempotency_keys')
      .where({ org_id: t.orgId, key })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const live = `live-${randomUUID()}`;
    const expires_at = new Date(Date.now() + hour);
    const liveRow = { org_id: t.orgId, key: live, fingerprint: 'x', status: 202, response: '{}', expires_at };
    await db()('idempotency_keys').insert(liveRow);
    const out = await app.runtime.ctx.temporal.client.workflow.execute(retentionWorkflow, {
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      workflowId: `retention-${randomUUID()}`,
      args: [new Date().toISOString()],
    });
    expect((out as { idempotencyKeysDeleted: number }).idempotencyKeysDeleted).toBeGreaterThanOrEqual(1);
    expect(await db()('idempotency_keys').where({ org_id: t.orgId, key })).toHaveLength(0);
    expect(await db()('idempotency_keys').where({ org_id: t.orgId, key: live })).toHaveLength(1);
  });
});
