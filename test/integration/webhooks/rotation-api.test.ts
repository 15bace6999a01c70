import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { emitEvent } from '../../../src/events/outbox';
import { noteDeadLetter } from '../../../src/webhooks/health';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { waitUntil } from './fixtures';

/**
 * A receiver's check written here from the Standard Webhooks text, on purpose not with
 * src/webhooks/signing.ts: key = the secret's 32 characters as bytes, signed content
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, `v1,<base64>` entries separated by spaces.
 */
function standardVerify(secret: string, headers: IncomingHttpHeaders, raw: Buffer): boolean {
  const id = headers['webhook-id'] as string;
  const ts = headers['webhook-timestamp'] as string;
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  const expected = Buffer.from(mac.update(Buffer.concat([Buffer.from(`${id}.${ts}.`), raw])).digest('base64'));
  return String(headers['webhook-signature'])
    .split(' ')
    .map((e) => e.split(','))
    .some(([v, sig]) => v === 'v1' && sig!.length === expected.length && timingSafeEqual(Buffer.from(sig!), expected));
}
const legacyOk = (secret: string, headers: IncomingHttpHeaders, raw: Buffer) =>
  headers['x-service-signature'] === `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/** Standard Webhooks signatures, secret rotation and the auto-disable fields, through the real service. */
describe('webhook signatures and secret rotation', () => {
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  const as = (who: 'admin' | 'editor' | 'viewer') => ({ token: t[who].token, orgId: t.orgId });
  const db = () => app.runtime.ctx.db;
  const rotate = (id: string, body?: unknown, who: 'admin' | 'editor' | 'viewer' = 'editor') =>
    api(app, 'POST', `/api/v1/webhooks/${id}/secret/rotate`, { ...as(who), body });
  const testSend = async (id: string) => {
    receiver.requests.length = 0;
    const res = await api(app, 'POST', `/api/v1/webhooks/${id}/test`, as('editor'));
    expect(res.body.data.status).toBe('delivered');
    return { req: receiver.requests[0]!, deliveryId: res.body.data.delivery_id as string };
  };

  beforeAll(async () => {
    const { caFile } = await testCertificates();
    receiver = await startHttpsReceiver();
    const env = {
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_DISPATCH_POLL_MS: '60000',
    };
    app = await startTestApp({ role: 'all', env });
    t = await seedTenant(app);
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.handle((_r, res) => void res.end('ok'));
  });

  const create = async (path = '/rot') => {
    const body = { name: 'rot', url: `${receiver.url}${path}`, events: ['trace.completed'] };
    return (await api(app, 'POST', '/api/v1/webhooks', { ...as('admin'), body })).body.data;
  };
  const read = async (id: string) => (await api(app, 'GET', `/api/v1/webhooks/${id}`, as('viewer'))).body.data;
  const clear = (w: { secret: string }, r: { secret: string }) => new RegExp(`${w.secret}|${r.secret}`);

  it('signs every attempt the Standard Webhooks way next to the unchanged X-Service headers', async () => {
    const w = await create();
    expect(w).toMatchObject({ previous_secret_expires_at: null, disabled_reason: null, disabled_at: null });
    const before = Math.floor(Date.now() / 1000);
    const { req, deliveryId } = await testSend(w.id);
    expect(req.headers['webhook-id']).toBe(deliveryId);
    expect(req.headers['x-service-delivery-id']).toBe(deliveryId);
    expect(Number(req.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(req.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(String(req.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(standardVerify(w.secret, req.headers, req.raw)).toBe(true);
    expect(legacyOk(w.secret, req.headers, req.raw)).toBe(true);
    // A changed byte, id or timestamp fails the check.
    expect(standardVerify(w.secret, req.headers, Buffer.concat([req.raw, Buffer.from(' ')]))).toBe(false);
    expect(standardVerify(w.secret, { ...req.headers, 'webhook-timestamp': String(before - 1) }, req.raw)).toBe(false);
  });

  it('rotates: new secret shown once, both signatures in the overlap, X-Service-Signature new', async () => {
    const w = await create();
    const res = await rotate(w.id, { previous_expires_in_seconds: 3600 });
    expect(res.status).toBe(200);
    const r = res.body.data;
    expect(r.secret).toMatch(/^[0-9a-f]{32}$/);
    expect(r.secret).not.toBe(w.secret);
    expect(Date.parse(r.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3590_000);
    expect(Date.parse(r.previous_secret_expires_at) - Date.now()).toBeLessThanOrEqual(3600_000);
    const shown = await read(w.id);
    expect(shown).toMatchObject({ secret: `${r.secret.slice(0, 4)}…` });
    expect(shown.previous_secret_expires_at).toBe(r.previous_secret_expires_at);

    // The receiver echoes what it got: none of it may reach the attempt history.
    receiver.handle((q, res) => {
      res.setHeader('x-echo', `${q.headers['webhook-signature']} ${q.headers['x-service-signature']}`);
      res.end(JSON.stringify({ ...q.headers, secrets: [w.secret, r.secret] }));
    });
    const { req, deliveryId } = await testSend(w.id);
    const entries = String(req.headers['webhook-signature']).split(' ');
    expect(entries).toHaveLength(2);
    expect(standardVerify(r.secret, { ...req.headers, 'webhook-signature': entries[0] }, req.raw)).toBe(true);
    expect(standardVerify(w.secret, { ...req.headers, 'webhook-signature': entries[1] }, req.raw)).toBe(true);
    expect(legacyOk(r.secret, req.headers, req.raw)).toBe(true);
    expect(legacyOk(w.secret, req.headers, req.raw)).toBe(false);

    const stored = JSON.stringify(await db()('webhook_delivery_attempts').where({ delivery_id: deliveryId }));
    expect(stored).toContain('[redacted]');
    const digests = entries.map((e) => e.slice(3));
    const hex = String(req.headers['x-service-signature']).slice(7);
    for (const s of [w.secret, r.secret, ...digests, hex]) expect(stored).not.toContain(s);
    // Neither secret is stored in clear, nor audited.
    expect(JSON.stringify(await db()('webhooks').where({ id: w.id }).first())).not.toMatch(clear(w, r));
    const audit = await db()('audit_logs').where({ resource_id: w.id, action: 'webhook.secret_rotated' });
    expect(audit).toHaveLength(1);
    expect(audit[0].after.previous_valid_until).toBe(r.previous_secret_expires_at);
    expect(JSON.stringify(audit)).not.toMatch(clear(w, r));
  });

  it('ends the old secret at once with 0, defaults to a day without a body, and drops an expired one', async () => {
    const w = await create();
    const now = await rotate(w.id, { previous_expires_in_seconds: 0 });
    expect(now.body.data.previous_secret_expires_at).toBeNull();
    let { req } = await testSend(w.id);
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerify(now.body.data.secret, req.headers, req.raw)).toBe(true);
    expect(standardVerify(w.secret, req.headers, req.raw)).toBe(false);

    const dflt = await rotate(w.id, undefined, 'admin');
    expect(dflt.status).toBe(200);
    const until = Date.parse(dflt.body.data.previous_secret_expires_at);
    expect(Math.abs(until - Date.now() - 86_400_000)).toBeLessThan(10_000);
    await db()('webhooks')
      .where({ id: w.id })
      .update({ previous_secret_expires_at: new Date(Date.now() - 1000) });
    ({ req } = await testSend(w.id));
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerify(dflt.body.data.secret, req.headers, req.raw)).toBe(true);
    expect((await read(w.id)).previous_secret_expires_at).toBeNull();
  });

  it.each([
    [{ previous_expires_in_seconds: 604_801 }],
    [{ previous_expires_in_seconds: -1 }],
    [{ previous_expires_in_seconds: 1.5 }],
    [{ secret: 'mine' }],
  ])('rejects the rotate body %j with 400', async (body) => {
    const w = (await api(app, 'GET', '/api/v1/webhooks', as('viewer'))).body.data[0];
    const res = await rotate(w.id, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });

  it('answers 403 to viewers and 404 to unknown ids', async () => {
    const w = (await api(app, 'GET', '/api/v1/webhooks', as('viewer'))).body.data[0];
    expect((await rotate(w.id, {}, 'viewer')).status).toBe(403);
    expect((await rotate('00000000-0000-4000-8000-000000000000', {})).status).toBe(404);
  });

  it('real deliveries (dispatcher → workflow) carry both signatures after a rotation', async () => {
    const w = await create('/dispatched');
    const r = (await rotate(w.id, { previous_expires_in_seconds: 600 })).body.data;
    const trace = { id: 'tr-rot', status: 'completed', ended_at: new Date().toISOString(), duration_ms: 1 };
    await db().transaction((trx) => emitEvent(trx, t.orgId, 'trace.completed', { trace }));
    const req = await waitUntil(async () => receiver.requests.find((q) => q.path === '/dispatched'));
    expect(req.headers['webhook-id']).toBe(req.headers['x-service-delivery-id']);
    const entries = String(req.headers['webhook-signature']).split(' ');
    expect(standardVerify(r.secret, { ...req.headers, 'webhook-signature': entries[0] }, req.raw)).toBe(true);
    expect(standardVerify(w.secret, { ...req.headers, 'webhook-signature': entries[1] }, req.raw)).toBe(true);
    expect(legacyOk(r.secret, req.headers, req.raw)).toBe(true);
    await api(app, 'DELETE', `/api/v1/webhooks/${w.id}`, as('admin'));
  });

  it('a delivered test delivery ends a failing streak', async () => {
    const w = await create();
    await db()('webhooks').where({ id: w.id }).update({ consecutive_failures: 3, failing_since: new Date() });
    await testSend(w.id);
    const row = await db()('webhooks').where({ id: w.id }).first();
    expect(row).toMatchObject({ consecutive_failures: 0, failing_since: null });
  });

  it('shows disabled_reason failing and disabled_at after an auto-disable; PATCH is_active true clears', async () => {
    const w = await create();
    expect(await noteDeadLetter(db(), w.id, { windowS: 0, minFailures: 1 })).toBe(true);
    const off = await read(w.id);
    expect(off).toMatchObject({ is_active: false, disabled_reason: 'failing' });
    expect(new Date(off.disabled_at).toISOString()).toBe(off.disabled_at);
    const audit = await db()('audit_logs').where({ resource_id: w.id, action: 'webhook.auto_disabled' }).first();
    expect(audit).toMatchObject({ actor_type: 'system' });
    expect(audit.after).toMatchObject({ is_active: false, disabled_reason: 'failing', consecutive_failures: 1 });

    const on = await api(app, 'PATCH', `/api/v1/webhooks/${w.id}`, { ...as('editor'), body: { is_active: true } });
    expect(on.body.data).toMatchObject({ is_active: true, disabled_reason: null, disabled_at: null });
    const row = await db()('webhooks').where({ id: w.id }).first();
    expect(row).toMatchObject({ consecutive_failures: 0, failing_since: null });
  });
});
