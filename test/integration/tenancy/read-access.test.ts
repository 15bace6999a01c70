import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { requireRole, requireWriteAccess } from '../../../src/http/guards';
import { principalOf } from '../../../src/auth/principal';
import { errorHandler, requestContext } from '../../../src/http/middleware';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, mintJwt, seedTenant, type SeededTenant } from '../../helpers/auth';

/**
 * The middleware other features mount (dual-auth reads, full-key ingest/proxy, evals-style writes),
 * proven on a tiny router that uses the real service context and database.
 */
describe('auth middleware on a tiny router', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let server: Server;
  const tiny = { url: '' };

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    const ctx = app.runtime.ctx;
    const r = express();
    r.use(requestContext(ctx.logger));
    r.use(express.json());
    const scope = async (req: express.Request, res: express.Response) => {
      const s = await ctx.auth.projectScope(principalOf(req), req.query?.project_id ?? req.body?.project_id);
      res.json({ success: true, data: { principal: principalOf(req).kind, ...s } });
    };
    r.get('/read', ctx.auth.read, scope);
    r.post('/read', ctx.auth.read, scope);
    r.post('/evals', ctx.auth.read, requireWriteAccess(), scope);
    r.post('/ingest', ctx.auth.fullKey, scope);
    r.post('/webhooks', ctx.auth.jwt(), requireRole('admin', 'editor'), scope);
    r.use(errorHandler);
    server = r.listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    tiny.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
    await app.stop();
  });

  const expired = () => mintJwt({ sub: t.admin.sub, expiresInSeconds: -60 });
  const who = (): Record<string, { token?: string; orgId?: string }> => ({
    none: {},
    expired: { token: expired(), orgId: t.orgId },
    garbage: { token: 'garbage', orgId: t.orgId },
    revoked: { token: t.revokedKey },
    full: { token: t.fullKey },
    public: { token: t.publicKey },
    viewer: { token: t.viewer.token, orgId: t.orgId },
    editor: { token: t.editor.token, orgId: t.orgId },
    admin: { token: t.admin.token, orgId: t.orgId },
    outsider: { token: other.admin.token, orgId: t.orgId },
  });

  const table: [string, string, Record<string, number>][] = [
    [
      'GET',
      '/read',
      {
        none: 401,
        expired: 401,
        garbage: 401,
        revoked: 401,
        full: 200,
        public: 200,
        viewer: 200,
        editor: 200,
        admin: 200,
        outsider: 404,
      },
    ],
    [
      'POST',
      '/read',
      {
        none: 401,
        expired: 401,
        garbage: 401,
        revoked: 401,
        full: 200,
        public: 403,
        viewer: 200,
        editor: 200,
        admin: 200,
        outsider: 404,
      },
    ],
    [
      'POST',
      '/evals',
      {
        none: 401,
        expired: 401,
        garbage: 401,
        revoked: 401,
        full: 200,
        public: 403,
        viewer: 403,
        editor: 200,
        admin: 200,
        outsider: 404,
      },
    ],
    [
      'POST',
      '/ingest',
      {
        none: 401,
        expired: 401,
        garbage: 401,
        revoked: 401,
        full: 200,
        public: 403,
        viewer: 401,
        editor: 401,
        admin: 401,
        outsider: 401,
      },
    ],
    [
      'POST',
      '/webhooks',
      {
        none: 401,
        expired: 401,
        garbage: 401,
        revoked: 401,
        full: 403,
        public: 403,
        viewer: 403,
        editor: 200,
        admin: 200,
        outsider: 404,
      },
    ],
  ];
  const cases = table.flatMap(([method, path, exp]) =>
    Object.entries(exp).map(([id, status]) => ({ method, path, id, status })),
  );

  it.each(cases)('$method $path as $id → $status', async ({ method, path, id, status }) => {
    const r = await api(tiny, method, path, { ...who()[id], body: method === 'POST' ? {} : undefined });
    expect(r.status).toBe(status);
    if (status === 200) expect(r.body.data.orgId).toBe(t.orgId);
  });

  it('API keys are bound to their project; users see all projects or the one they name', async () => {
    const second = (
      await api(app, 'POST', '/api/v1/projects', { token: t.admin.token, orgId: t.orgId, body: { name: 'second' } })
    ).body.data;
    const byKey = await api(tiny, 'GET', '/read', { token: t.fullKey });
    expect(byKey.body.data).toEqual({ principal: 'api_key', orgId: t.orgId, projectIds: [t.projectId] });
    expect((await api(tiny, 'GET', `/read?project_id=${second.id}`, { token: t.publicKey })).status).toBe(404);
    const byUser = await api(tiny, 'GET', '/read', { token: t.viewer.token, orgId: t.orgId });
    expect(byUser.body.data.projectIds.sort()).toEqual([t.projectId, second.id].sort());
    const named = await api(tiny, 'GET', `/read?project_id=${second.id}`, { token: t.viewer.token, orgId: t.orgId });
    expect(named.body.data.projectIds).toEqual([second.id]);
    expect(
      (await api(tiny, 'GET', `/read?project_id=${other.projectId}`, { token: t.viewer.token, orgId: t.orgId })).status,
    ).toBe(404);
    expect((await api(tiny, 'GET', '/read?project_id=bogus', { token: t.viewer.token, orgId: t.orgId })).status).toBe(
      404,
    );
    // Body field on create.
    const body = await api(tiny, 'POST', '/evals', {
      token: t.editor.token,
      orgId: t.orgId,
      body: { project_id: second.id },
    });
    expect(body.body.data.projectIds).toEqual([second.id]);
  });

  it('full keys are also accepted in x-api-key / x-goog-api-key (Anthropic and Gemini SDKs)', async () => {
    expect((await api(tiny, 'POST', '/ingest', { headers: { 'x-api-key': t.fullKey } })).status).toBe(200);
    expect((await api(tiny, 'POST', '/ingest', { headers: { 'x-goog-api-key': t.fullKey } })).status).toBe(200);
    expect((await api(tiny, 'POST', '/ingest', { headers: { 'x-api-key': t.publicKey } })).status).toBe(403);
  });
});
