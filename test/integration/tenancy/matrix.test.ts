import { buildRoutes } from '../../../src/routes';
import { startTestApp } from '../../helpers/app';
import { api, seedTenant } from '../../helpers/auth';
import {
  ADMIN,
  adminCall,
  ALL,
  credentials,
  expected,
  IDENTITIES,
  limitedProject,
  newMember,
  newProject,
  tag,
  WRITERS,
  type Ctx,
  type Endpoint,
} from './matrix-rules';
import { webhookRows } from './matrix-webhooks';

const TENANCY_TAGS = new Set([
  'Organizations',
  'Projects',
  'API keys',
  'Provider keys',
  'Key introspection',
  'Members',
  'Invitations',
  'Billing',
  'Audit logs',
  'Me',
  'Rate limits',
]);

/**
 * Role × endpoint matrix for every endpoint of tenancy/auth/keys. Each row names who may call the
 * endpoint; the expected status of every identity is derived from that by the rules in docs/auth.md:
 * 401 for missing/invalid/expired/revoked credentials, 403 for a valid identity without the right
 * (including API keys on JWT-only endpoints), 404 for another organization's resources.
 */

const endpoints: Endpoint[] = [
  // Organizations
  {
    name: 'GET /organizations',
    method: 'GET',
    auth: 'jwt',
    org: 'none',
    roles: ALL,
    ok: 200,
    prepare: () => ({ path: '/api/v1/organizations' }),
  },
  {
    name: 'GET /organizations/:orgId',
    method: 'GET',
    auth: 'jwt',
    org: 'path',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}` }),
  },
  {
    name: 'PATCH /organizations/:orgId',
    method: 'PATCH',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}`, body: { name: `Renamed ${tag()}` } }),
  },
  {
    // Past the role check the owner rule answers: the target is not an admin (409). Proves auth passed without moving
    // ownership.
    name: 'POST /organizations/:orgId/transfer-ownership',
    method: 'POST',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 409,
    prepare: (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/transfer-ownership`,
      body: { user_id: c.t.viewer.userId },
    }),
  },
  // Members
  {
    name: 'GET /organizations/:orgId/members',
    method: 'GET',
    auth: 'jwt',
    org: 'path',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}/members` }),
  },
  {
    name: 'PATCH /organizations/:orgId/members/:userId',
    method: 'PATCH',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/members/${await newMember(c, 'viewer')}`,
      body: { role: 'editor' },
    }),
  },
  {
    name: 'PUT /organizations/:orgId/members/:userId',
    method: 'PUT',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/members/${await newMember(c, 'editor')}`,
      body: { role: 'viewer' },
    }),
  },
  {
    name: 'DELETE /organizations/:orgId/members/:userId',
    method: 'DELETE',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/organizations/${c.t.orgId}/members/${await newMember(c, 'viewer')}` }),
  },
  // Invitations
  {
    name: 'GET /organizations/:orgId/invitations',
    method: 'GET',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}/invitations` }),
  },
  {
    name: 'POST /organizations/:orgId/invitations',
    method: 'POST',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 201,
    prepare: (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/invitations`,
      body: { email: `x-${tag()}@example.test`, role: 'viewer' },
    }),
  },
  {
    name: 'DELETE /organizations/:orgId/invitations/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => {
      const inv = await adminCall(c, 'POST', `/api/v1/organizations/${c.t.orgId}/invitations`, {
        email: `y-${tag()}@example.test`,
        role: 'viewer',
      });
      return { path: `/api/v1/organizations/${c.t.orgId}/invitations/${inv.id}` };
    },
  },
  // Projects
  {
    name: 'GET /projects',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/projects' }),
  },
  {
    name: 'POST /projects',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    ownContext: 201,
    prepare: () => ({ path: '/api/v1/projects', body: { name: `p-${tag()}` } }),
  },
  {
    name: 'GET /projects/:id',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/projects/${c.t.projectId}` }),
  },
  {
    name: 'PATCH /projects/:id',
    method: 'PATCH',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/projects/${(await newProject(c)).id}`, body: { name: `q-${tag()}` } }),
  },
  {
    name: 'DELETE /projects/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/projects/${(await newProject(c)).id}` }),
  },
  // API keys
  {
    name: 'GET /api-keys',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/api-keys' }),
  },
  {
    name: 'POST /api-keys',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: (c) => ({ path: '/api/v1/api-keys', body: { project_id: c.t.projectId, name: 'k', scope: 'full' } }),
  },
  {
    name: 'GET /api-keys/:id',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/api-keys/${c.t.fullKeyId}` }),
  },
  {
    name: 'PATCH /api-keys/:id',
    method: 'PATCH',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => {
      const k = await adminCall(c, 'POST', '/api/v1/api-keys', { project_id: c.t.projectId, name: 'to revoke' });
      return { path: `/api/v1/api-keys/${k.id}`, body: { is_active: false } };
    },
  },
  {
    name: 'DELETE /api-keys/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => {
      const k = await adminCall(c, 'POST', '/api/v1/api-keys', { project_id: c.t.projectId, name: 'to delete' });
      return { path: `/api/v1/api-keys/${k.id}` };
    },
  },
  // Provider keys
  {
    name: 'GET /provider-keys',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/provider-keys' }),
  },
  {
    name: 'POST /provider-keys',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: async (c) => ({
      path: '/api/v1/provider-keys',
      body: { project_id: (await newProject(c)).id, provider: 'openai', api_key: 'sk-test-0123456789abcdef' },
    }),
  },
  {
    name: 'PUT /provider-keys',
    method: 'PUT',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: async (c) => ({
      path: '/api/v1/provider-keys',
      body: { project_id: (await newProject(c)).id, provider: 'ollama', base_url: 'http://127.0.0.1:11434' },
    }),
  },
  {
    name: 'GET /provider-keys/:id',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: async (c) => {
      const pk = await adminCall(c, 'PUT', '/api/v1/provider-keys', {
        project_id: c.t.projectId,
        provider: 'anthropic',
        api_key: 'sk-ant-test-0123456789',
      });
      return { path: `/api/v1/provider-keys/${pk.id}` };
    },
  },
  {
    name: 'DELETE /provider-keys/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => {
      const pk = await adminCall(c, 'POST', '/api/v1/provider-keys', {
        project_id: (await newProject(c)).id,
        provider: 'groq',
        api_key: 'gsk_test_0123456789',
      });
      return { path: `/api/v1/provider-keys/${pk.id}` };
    },
  },
  // Billing
  {
    name: 'GET /billing',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/billing' }),
  },
  // A no-op change (free → free) keeps the tenant's allowance unchanged for the rows below.
  {
    name: 'PATCH /billing',
    method: 'PATCH',
    auth: 'jwt',
    org: 'header',
    roles: ADMIN,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/billing', body: { plan: 'free' } }),
  },
  {
    name: 'PUT /billing',
    method: 'PUT',
    auth: 'jwt',
    org: 'header',
    roles: ADMIN,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/billing', body: { plan: 'free' } }),
  },
  // Audit logs
  {
    name: 'GET /audit-logs',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ADMIN,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/audit-logs' }),
  },
  // Rate limits (a fresh project per call, so every writer's PUT creates: 201)
  {
    name: 'GET /rate-limits',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/rate-limits' }),
  },
  {
    name: 'PUT /rate-limits',
    method: 'PUT',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: async (c) => ({
      path: '/api/v1/rate-limits',
      body: { project_id: (await newProject(c)).id, requests_per_window: 10, window_seconds: 60 },
    }),
  },
  {
    name: 'DELETE /rate-limits',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 204,
    prepare: async (c) => ({ path: `/api/v1/rate-limits?project_id=${(await limitedProject(c)).id}` }),
  },
  {
    name: 'GET /rate-limits/usage',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/rate-limits/usage?project_id=${(await limitedProject(c)).id}&user_id=u-1`,
    }),
  },
  // Me
  {
    name: 'GET /me',
    method: 'GET',
    auth: 'jwt',
    org: 'none',
    roles: ALL,
    ok: 200,
    prepare: () => ({ path: '/api/v1/me' }),
  },
  {
    name: 'GET /me/invitations',
    method: 'GET',
    auth: 'jwt',
    org: 'none',
    roles: ALL,
    ok: 200,
    prepare: () => ({ path: '/api/v1/me/invitations' }),
  },
  {
    name: 'GET /me/key-info',
    method: 'GET',
    auth: 'key',
    org: 'none',
    roles: [],
    ok: 200,
    prepare: () => ({ path: '/api/v1/me/key-info' }),
  },
  // Accepting needs a token of an invitation: a made-up one is 404 for any signed-in user.
  {
    name: 'POST /invitations/accept (unknown token)',
    method: 'POST',
    auth: 'jwt',
    org: 'none',
    roles: ALL,
    ok: 404,
    prepare: () => ({ path: '/api/v1/invitations/accept', body: { token: 'inv_' + 'A'.repeat(43) } }),
  },
  {
    name: 'POST /invitations/:id/accept (addressed to someone else)',
    method: 'POST',
    auth: 'jwt',
    org: 'none',
    roles: ALL,
    ok: 404,
    prepare: async (c) => {
      const inv = await adminCall(c, 'POST', `/api/v1/organizations/${c.t.orgId}/invitations`, {
        email: `z-${tag()}@example.test`,
        role: 'viewer',
      });
      return { path: `/api/v1/invitations/${inv.id}/accept` };
    },
  },
  // Creating workspaces: the tenant admin and the other org's admin already own their free plan's one
  // workspace (402); editor and viewer own none yet.
  {
    name: 'POST /organizations',
    method: 'POST',
    auth: 'jwt',
    org: 'none',
    roles: ALL,
    ok: 201,
    override: { admin: 402, other_org: 402, other_org_own_context: 402 },
    prepare: () => ({ path: '/api/v1/organizations', body: { name: `Mine ${tag()}` } }),
  },
  ...webhookRows,
  // Last: the owner deletes the workspace.
  {
    name: 'DELETE /organizations/:orgId',
    method: 'DELETE',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}` }),
  },
];

describe('role × endpoint matrix (tenancy, auth, keys)', () => {
  const c = {} as Ctx;
  beforeAll(async () => {
    c.app = await startTestApp({ role: 'api' });
    [c.t, c.other] = await Promise.all([seedTenant(c.app), seedTenant(c.app)]);
  });
  afterAll(() => c.app.stop());

  const cases = endpoints.flatMap((e) =>
    IDENTITIES.map((who) => ({ e, who, name: `${e.name} as ${who} → ${expected(e, who)}` })),
  );

  it.each(cases)('$name', async ({ e, who }) => {
    const prep = await e.prepare(c, who);
    const r = await api(c.app, e.method, prep.path, {
      ...credentials(c, who, e),
      body: prep.body,
      headers: prep.headers,
    });
    const want = expected(e, who);
    if (r.status !== want)
      throw new Error(`${e.name} as ${who}: expected ${want}, got ${r.status} ${JSON.stringify(r.body)}`);
    if (want === 204) expect(r.body).toBeUndefined();
    else expect(r.body.success).toBe(want < 300);
    if (want >= 400) expect(typeof r.body.code).toBe('string');
    if (who === 'full_key' || who === 'public_key') {
      if (e.auth === 'jwt') expect(r.body.code).toBe('jwt_required');
    }
    if (who === 'revoked_key') expect(r.body.code).toBe('api_key_revoked');
    if (who === 'expired' && e.auth === 'jwt') expect(r.body.code).toBe('token_expired');
  });

  it('has a row for every route of the tenancy, keys, audit and rate-limit contracts', () => {
    // Guards against adding an endpoint without a matrix row.
    const routes = buildRoutes(c.app.runtime.ctx, c.app.runtime.services!);
    const all = routes.map((r) => ({ tag: r.tag, name: `${r.method.toUpperCase()} ${r.path.replace('/api/v1', '')}` }));
    const mounted = new Set(all.filter((r) => TENANCY_TAGS.has(r.tag)).map((r) => r.name));
    const covered = new Set(endpoints.map((e) => e.name.split(' (')[0]!));
    expect([...mounted].filter((r) => !covered.has(r)).sort()).toEqual([]);
    // …and every row names a mounted route (rows of other features, e.g. webhooks, too).
    expect([...covered].filter((r) => !all.some((a) => a.name === r)).sort()).toEqual([]);
  });
});
