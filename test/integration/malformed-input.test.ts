import { startTestApp, type TestApp } from '../helpers/app';
import { seedTenant, type SeededTenant } from '../helpers/auth';

/**
 * Malformed input reaches a clear 4xx with the error envelope, never a 5xx: bad percent-encoding
 * in a path, NUL bytes and lone surrogates in bodies and filters, forged cursors, dates outside
 * what PostgreSQL stores, JSON nested 10,000 deep (issue 11 §2). Each route family has its own
 * tests; this file checks the shared layer on routes of every kind.
 */
describe('malformed input never reaches a 5xx', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app?.stop());

  const call = async (method: string, path: string, body?: string, token = t.admin.token) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-organization-id': t.orgId,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body,
    });
    const json = (await res.json().catch(() => null)) as { success?: boolean; code?: string; error?: string } | null;
    return { status: res.status, json };
  };

  it.each([
    ['GET', '/api/v1/projects/%ff%fe'],
    ['GET', '/api/v1/webhooks/%ff%fe'],
    ['GET', '/api/v1/traces/%ff%fe'],
    ['GET', '/api/v1/sessions/%E0%A4%A'],
    ['PATCH', '/api/v1/projects/%c0'],
  ])('%s %s with a path that is not valid percent-encoding → 400 envelope', async (method, path) => {
    const r = await call(method, path, method === 'PATCH' ? '{"name":"x"}' : undefined);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ success: false, code: 'invalid_path_encoding' });
  });

  it.each([
    ['POST', '/api/v1/shares', { resource_type: 'request', resource_id: 'not-a-uuid' }, 'body.resource_id'],
    ['POST', '/api/v1/shares', { resource_type: 'experiment_comparison', resource_id: 'a,b' }, 'body.resource_id'],
    ['GET', '/api/v1/audit-logs?from=-200000-01-01T00:00:00Z', undefined, 'query.from'],
    ['GET', '/api/v1/audit-logs?to=0000-01-01T00:00:00Z', undefined, 'query.to'],
    ['GET', '/api/v1/requests?project_id=not-a-uuid', undefined, 'query.project_id'],
    ['GET', '/api/v1/security/findings?request_id=not-a-uuid', undefined, 'query.request_id'],
  ])(
    '%s %s: an id or a time PostgreSQL cannot take is the contract’s 400, not a 500',
    async (method, path, body, field) => {
      const r = await call(method, path, body === undefined ? undefined : JSON.stringify(body));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        success: false,
        code: 'validation_error',
        error: expect.stringContaining(`Invalid ${field}`),
      });
    },
  );

  it.each(['min_latency_ms=1.5', 'max_latency_ms=99999999999', 'min_latency_ms=1e300'])(
    'GET /api/v1/requests and /stats?%s: a latency bound the integer column cannot hold ' +
      'is still a bound, not a database error',
    async (q) => {
      for (const path of ['/api/v1/requests', '/api/v1/stats'])
        expect({ path, status: (await call('GET', `${path}?${q}`)).status }).toEqual({ path, status: 200 });
    },
  );

  it('refuses NUL and lone surrogates in body strings with 400 invalid_text, storing nothing', async () => {
    for (const name of ['a\u0000b', '\ud800x', 'x\udc00']) {
      const r = await call('POST', '/api/v1/projects', JSON.stringify({ name }));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ success: false, code: 'invalid_text' });
    }
    const list = await call('GET', '/api/v1/projects');
    expect(list.status).toBe(200);
  });

  it('refuses JSON nested 10,000 deep with a 4xx, and the server keeps serving', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const r = await call('POST', '/api/v1/projects', `{"name":"deep","x":${deep}}`);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect((await fetch(`${app.url}/health`)).status).toBe(200);
  });
});
