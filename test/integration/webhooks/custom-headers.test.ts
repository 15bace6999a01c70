import { emitEvent } from '../../../src/events/outbox';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { waitUntil } from './fixtures';

/**
 * Per-webhook custom headers (docs/webhooks.md "Custom headers") on the real service, PostgreSQL,
 * the suite's Temporal dev server and an HTTPS receiver: sent on every attempt, stored encrypted,
 * only their names shown, their values never in the attempt history or the audit log.
 */
describe('webhook custom headers', () => {
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  const as = () => ({ token: t.editor.token, orgId: t.orgId });
  const db = () => app.runtime.ctx.db;
  const TOKEN = 'Bearer receiver-token-5f1c2e9a7b';

  beforeAll(async () => {
    const { caFile } = await testCertificates();
    receiver = await startHttpsReceiver();
    const env = {
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_DISPATCH_POLL_MS: '500',
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

  const create = (body: Record<string, unknown>) => api(app, 'POST', '/api/v1/webhooks', { ...as(), body });
  const at = (path: string, count: number) =>
    waitUntil(
      async () => {
        const got = receiver.requests.filter((r) => r.path === path);
        return got.length >= count ? got : undefined;
      },
      20_000,
      `${count} requests on ${path}`,
    );

  it('sends them on test pings and on every delivery attempt; stores them encrypted and shows only names', async () => {
    const headers = { Authorization: TOKEN, 'X-Tenant': 'acme' };
    const res = await create({ name: 'h', url: `${receiver.url}/custom`, events: ['trace.completed'], headers });
    expect(res.status).toBe(201);
    const hook = res.body.data;
    expect(hook.header_names).toEqual(['Authorization', 'X-Tenant']);
    expect(JSON.stringify(res.body)).not.toContain('receiver-token');
    const row = await db()('webhooks').where({ id: hook.id }).first();
    expect(row.headers_ciphertext).toEqual(expect.any(String));
    expect(JSON.stringify(row)).not.toContain('receiver-token');

    expect((await api(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, as())).status).toBe(200);
    const [ping] = await at('/custom', 1);
    expect(ping!.headers).toMatchObject({ authorization: TOKEN, 'x-tenant': 'acme' });
    expect(ping!.headers['content-type']).toBe('application/json');
    expect(ping!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    // A careless receiver echoes the credential: the history keeps it redacted.
    receiver.handle((req, res) => {
      res.writeHead(500, { 'x-echo': req.headers.authorization as string });
      res.end(`got ${req.headers.authorization}`);
    });
    const trace = { id: 'tr-h', status: 'completed', ended_at: '2026-01-01T00:00:00.000Z', duration_ms: 5 };
    await emitEvent(db(), t.orgId, 'trace.completed', { trace });
    const [, attempt] = await at('/custom', 2);
    expect(attempt!.headers).toMatchObject({ authorization: TOKEN, 'x-tenant': 'acme' });
    const deliveryId = attempt!.headers['x-service-delivery-id'] as string;
    const detail = await waitUntil(
      async () => {
        const d = (await api(app, 'GET', `/api/v1/webhooks/${hook.id}/deliveries/${deliveryId}`, as())).body.data;
        return d?.attempts?.length ? d : undefined;
      },
      20_000,
      'the failed attempt recorded',
    );
    expect(detail.attempts[0].response_headers).toContain('x-echo: [redacted]');
    expect(detail.attempts[0].response_body).toBe('got [redacted]');
    const stored = await db()('webhook_delivery_attempts').where({ delivery_id: deliveryId });
    expect(JSON.stringify(stored)).not.toContain('receiver-token');

    // PATCH replaces the whole set; {} removes it.
    await api(app, 'PATCH', `/api/v1/webhooks/${hook.id}`, { ...as(), body: { is_active: false } });
    const patch = (body: unknown) => api(app, 'PATCH', `/api/v1/webhooks/${hook.id}`, { ...as(), body });
    const patched = await patch({ headers: { 'X-Other': 'v' } });
    expect(patched.body.data.header_names).toEqual(['X-Other']);
    receiver.requests.length = 0;
    receiver.handle((_r, res) => void res.end('ok'));
    await api(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, as());
    const [second] = await at('/custom', 1);
    expect(second!.headers['x-other']).toBe('v');
    expect(second!.headers.authorization).toBeUndefined();
    const cleared = await patch({ headers: {} });
    expect(cleared.body.data.header_names).toEqual([]);
    expect((await db()('webhooks').where({ id: hook.id }).first()).headers_ciphertext).toBeNull();

    const audit = await db()('audit_logs').where({ resource_id: hook.id });
    expect(audit.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(audit)).not.toContain('receiver-token');
  });

  const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
  it.each([
    ['X-Service-Signature', { 'X-Service-Signature': 'sha256=x' }, /set by the service/],
    ['an X-Service- prefix', { 'x-service-anything': 'v' }, /set by the service/],
    ['webhook-id', { 'webhook-id': 'v' }, /set by the service/],
    ['Host', { Host: 'evil.example' }, /set by the service/],
    ['Content-Length', { 'content-length': '1' }, /set by the service/],
    ['User-Agent', { 'User-Agent': 'x' }, /set by the service/],
    ['a name with a space', { 'Bad Name': 'v' }, /valid header name/],
    ['a line break in a value', { 'X-A': 'v\r\nX-Injected: 1' }, /printable ASCII/],
    ['an empty value', { 'X-A': '' }, /printable ASCII/],
    ['the same name twice', { 'X-A': '1', 'x-a': '2' }, /twice/],
    ['21 headers', many, /at most 20/],
  ])('refuses %s with 400 validation_error', async (_what, headers, message) => {
    const res = await create({ name: 'bad', url: `${receiver.url}/bad`, events: [], headers });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.error).toMatch(/body\.headers/);
    expect(res.body.error).toMatch(message);
  });
});
