import { randomBytes } from 'node:crypto';
import type { TestApp } from '../../helpers/app';
import { api, mintJwt, type SeededTenant } from '../../helpers/auth';

/**
 * The role × endpoint matrix's rules (matrix.test.ts and the matrix-*.ts tables hold the rows): the
 * identities tried, how an endpoint row is described, the expected status of each identity by the rules
 * in docs/auth.md, the credentials each identity sends, and the setup calls rows use.
 */

export type Identity =
  | 'none'
  | 'expired'
  | 'bad_signature'
  | 'revoked_key'
  | 'full_key'
  | 'public_key'
  | 'other_org'
  | 'other_org_own_context'
  | 'viewer'
  | 'editor'
  | 'admin';
// Admin last: its successful writes happen after everyone else's attempts on the same endpoint.
export const IDENTITIES: Identity[] = [
  'none',
  'expired',
  'bad_signature',
  'revoked_key',
  'full_key',
  'public_key',
  'other_org',
  'other_org_own_context',
  'viewer',
  'editor',
  'admin',
];

export type Role = 'admin' | 'editor' | 'viewer';
export const ALL: Role[] = ['admin', 'editor', 'viewer'];
export const WRITERS: Role[] = ['admin', 'editor'];
export const ADMIN: Role[] = ['admin'];

interface Prepared {
  path: string;
  body?: unknown;
  /** Extra request headers (e.g. Idempotency-Key). */
  headers?: Record<string, string>;
}

export interface Endpoint {
  name: string;
  /** jwt: JWT only; key: API key only (introspection). */
  auth: 'jwt' | 'key';
  /** How the organization is chosen: from the path, the header, or not at all (user-level). */
  org: 'path' | 'header' | 'none';
  roles: Role[];
  ok: number;
  method: string;
  prepare: (t: Ctx, who: Identity) => Promise<Prepared> | Prepared;
  /** Expected status for an admin of another organization acting in their own context, when not 404. */
  ownContext?: number;
  /** Per-identity overrides where the rule above does not tell the whole story. */
  override?: Partial<Record<Identity, number>>;
}

export interface Ctx {
  app: TestApp;
  t: SeededTenant;
  other: SeededTenant;
}

export const tag = () => randomBytes(3).toString('hex');
export const adminCall = async (c: Ctx, method: string, path: string, body?: unknown) => {
  const r = await api(c.app, method, path, { token: c.t.admin.token, orgId: c.t.orgId, body });
  if (r.status >= 300) throw new Error(`setup ${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
};
export const newProject = (c: Ctx) => adminCall(c, 'POST', '/api/v1/projects', { name: `p-${tag()}` });
export const limitedProject = async (c: Ctx) => {
  const p = await newProject(c);
  await adminCall(c, 'PUT', '/api/v1/rate-limits', { project_id: p.id, requests_per_window: 10, window_seconds: 60 });
  return p;
};
export const newMember = async (c: Ctx, role: Role) => {
  const sub = `m-${tag()}`;
  const email = `${sub}@example.test`;
  const inv = await adminCall(c, 'POST', `/api/v1/organizations/${c.t.orgId}/invitations`, { email, role });
  const token = mintJwt({ sub, email });
  const r = await api(c.app, 'POST', '/api/v1/invitations/accept', { token, body: { token: inv.token } });
  if (r.status !== 200) throw new Error(`accept: ${r.status}`);
  return (await api(c.app, 'GET', '/api/v1/me', { token })).body.data.user.id as string;
};

export function expected(e: Endpoint, who: Identity): number {
  const o = e.override?.[who];
  if (o !== undefined) return o;
  switch (who) {
    case 'none':
    case 'expired':
    case 'bad_signature':
    case 'revoked_key':
      return 401;
    case 'full_key':
    case 'public_key':
      return e.auth === 'key' ? e.ok : 403;
    default:
      break;
  }
  if (e.auth === 'key') return 401; // a JWT where an API key is required
  if (who === 'other_org') return e.org === 'none' ? e.ok : 404;
  if (who === 'other_org_own_context') return e.org === 'none' ? e.ok : (e.ownContext ?? 404);
  return e.roles.includes(who) ? e.ok : 403;
}

export function credentials(c: Ctx, who: Identity, e: Endpoint): { token?: string; orgId?: string } {
  const orgId = e.org === 'header' ? c.t.orgId : undefined;
  switch (who) {
    case 'none':
      return {};
    case 'expired':
      return { token: mintJwt({ sub: c.t.admin.sub, email: c.t.admin.email, expiresInSeconds: -120 }), orgId };
    case 'bad_signature':
      return {
        token: mintJwt({ sub: c.t.admin.sub, email: c.t.admin.email, secret: 'not-the-server-secret-0123456789' }),
        orgId,
      };
    case 'revoked_key':
      return { token: c.t.revokedKey };
    case 'full_key':
      return { token: c.t.fullKey, orgId };
    case 'public_key':
      return { token: c.t.publicKey, orgId };
    case 'other_org':
      return { token: c.other.admin.token, orgId };
    case 'other_org_own_context':
      return { token: c.other.admin.token, orgId: e.org === 'header' ? c.other.orgId : undefined };
    default:
      return { token: c.t[who].token, orgId };
  }
}
