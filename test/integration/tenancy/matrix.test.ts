import { buildRoutes } from '../../../src/routes';
import { startTestApp } from '../../helpers/app';
import { api, seedTenant } from '../../helpers/auth';
import { ADMIN, adminCall, ALL, credentials, expected, IDENTITIES, tag, type Ctx, type Endpoint } from './matrix-rules';
import { keyRows } from './matrix-keys';
import { organizationRows } from './matrix-orgs';
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
  ...organizationRows,
  ...keyRows,
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
