import { encodeRequest } from '../../../src/ingest/otlp/decode';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { exportRequest, hex, span } from '../../unit/ingest/otlp-fixtures';

/** Who may write traces (full-scope keys only) and who may read them. */
describe('ingest and trace read authorization', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    other = await seedTenant(app);
  });
  afterAll(() => app.stop());

  const now = () => new Date().toISOString();
  let n = 0;
  const writes = () => {
    const id = `auth-${n++}-${Date.now()}`;
    return [
      {
        name: 'POST /ingest/traces',
        method: 'POST',
        path: '/ingest/traces',
        body: JSON.stringify({ id, name: 'x', start_time: now() }),
        type: 'application/json',
        ok: 201,
      },
      {
        name: 'PATCH /ingest/traces/:id',
        method: 'PATCH',
        path: `/ingest/traces/${id}`,
        body: JSON.stringify({ output: 'o' }),
        type: 'application/json',
        ok: 200,
      },
      {
        name: 'POST /ingest/spans',
        method: 'POST',
        path: '/ingest/spans',
        body: JSON.stringify({ id: `${id}-s`, trace_id: id, name: 's', start_time: now() }),
        type: 'application/json',
        ok: 201,
      },
      {
        name: 'PATCH /ingest/spans/:id',
        method: 'PATCH',
        path: `/ingest/spans/${id}-s`,
        body: JSON.stringify({ output: 'o' }),
        type: 'application/json',
        ok: 200,
      },
      {
        name: 'POST /ingest/batch',
        method: 'POST',
        path: '/ingest/batch',
        body: JSON.stringify({ operations: [{ op: 'trace.update', id, body: { output: 'o' } }] }),
        type: 'application/json',
        ok: 200,
      },
      {
        name: 'POST /v1/traces',
        method: 'POST',
        path: '/v1/traces',
        body: Buffer.from(
          encodeRequest(
            exportRequest([
              span({ traceId: hex(16), spanId: hex(8), name: 'r', startMs: Date.now(), endMs: Date.now() + 1 }),
            ]),
          ),
        ),
        type: 'application/x-protobuf',
        ok: 200,
      },
    ];
  };

  const creds = (): [string, string | undefined, number][] => [
    ['no credentials', undefined, 401],
    ['a malformed token', 'not-a-key', 401],
    ['an unknown key', 'sl_live_0000000000000000000000000000000000000000', 401],
    ['a public key', t.publicKey, 403],
    ['a revoked key', t.revokedKey, 401],
    ['a user JWT', t.admin.token, 401],
    ['a full key', t.fullKey, 0],
  ];

  it.each([
    'POST /ingest/traces',
    'PATCH /ingest/traces/:id',
    'POST /ingest/spans',
    'PATCH /ingest/spans/:id',
    'POST /ingest/batch',
    'POST /v1/traces',
  ])('%s: only an active full-scope key writes', async (route) => {
    for (const [label, token, expected] of creds()) {
      const w = writes().find((x) => x.name === route)!;
      const headers: Record<string, string> = { 'content-type': w.type };
      if (token) headers.authorization = `Bearer ${token}`;
      const res = await fetch(`${app.url}${w.path}`, { method: w.method, headers, body: w.body });
      expect({ label, status: res.status }).toEqual({ label, status: expected || w.ok });
    }
  });

  it('refused writes store nothing', async () => {
    const id = `refused-${Date.now()}`;
    for (const token of [t.publicKey, t.revokedKey, undefined]) {
      await api(app, 'POST', '/ingest/traces', { token, body: { id, name: 'x', start_time: now() } });
    }
    expect(await app.database.db('traces').where({ id }).first()).toBeUndefined();
  });

  it('reads: JWT, full and public keys see their project; revoked keys and other tenants do not', async () => {
    const id = `read-${Date.now()}`;
    await api(app, 'POST', '/ingest/traces', { token: t.fullKey, body: { id, name: 'readable', start_time: now() } });
    for (const token of [t.fullKey, t.publicKey]) {
      expect((await api(app, 'GET', `/api/v1/traces/${id}`, { token })).status).toBe(200);
      expect((await api(app, 'GET', '/api/v1/traces', { token })).body.data.map((x: { id: string }) => x.id)).toContain(
        id,
      );
    }
    for (const u of [t.admin, t.viewer]) {
      expect((await api(app, 'GET', `/api/v1/traces/${id}`, { token: u.token, orgId: t.orgId })).status).toBe(200);
      expect(
        (await api(app, 'GET', `/api/v1/traces?project_id=${t.projectId}`, { token: u.token, orgId: t.orgId })).status,
      ).toBe(200);
    }
    expect((await api(app, 'GET', `/api/v1/traces/${id}`, {})).status).toBe(401);
    expect((await api(app, 'GET', `/api/v1/traces/${id}`, { token: t.revokedKey })).status).toBe(401);
    // another organization: not found, never forbidden (no existence leak)
    expect((await api(app, 'GET', `/api/v1/traces/${id}`, { token: other.fullKey })).status).toBe(404);
    expect(
      (await api(app, 'GET', `/api/v1/traces/${id}`, { token: other.admin.token, orgId: other.orgId })).status,
    ).toBe(404);
    expect((await api(app, 'GET', `/api/v1/traces?project_id=${t.projectId}`, { token: other.publicKey })).status).toBe(
      404,
    );
    expect(
      (await api(app, 'GET', '/api/v1/traces', { token: other.fullKey })).body.data.map((x: { id: string }) => x.id),
    ).not.toContain(id);
  });

  it('sessions are JWT-only (the spec lists them among the dashboard groups)', async () => {
    expect((await api(app, 'GET', '/api/v1/sessions', { token: t.viewer.token, orgId: t.orgId })).status).toBe(200);
    expect((await api(app, 'GET', '/api/v1/sessions', { token: t.fullKey })).status).toBe(403);
    expect((await api(app, 'GET', '/api/v1/sessions', { token: t.publicKey })).status).toBe(403);
    expect((await api(app, 'GET', '/api/v1/sessions', {})).status).toBe(401);
  });
});
