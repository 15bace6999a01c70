import { createHmac, randomBytes } from 'node:crypto';
import type { TestApp } from './app';

/** The HS256 secret startTestApp configures (AUTH_JWT_SECRET). */
export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret';

export interface MintJwtOptions {
  sub: string;
  email?: string | null;
  /** Lifetime; negative values mint an already expired token. Default 3600 (the provider's 1 hour). */
  expiresInSeconds?: number;
  secret?: string;
  issuer?: string;
  audience?: string;
  claims?: Record<string, unknown>;
}

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/**
 * An HS256 JWT as the local identity provider would issue it. Synchronous on purpose (plain
 * node:crypto), so any test can build headers inline; the server verifies it with jose.
 */
export function mintJwt(opts: MintJwtOptions): string {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    sub: opts.sub,
    iat: now,
    exp: now + (opts.expiresInSeconds ?? 3600),
    ...(opts.email ? { email: opts.email } : {}),
    ...(opts.issuer ? { iss: opts.issuer } : {}),
    ...(opts.audience ? { aud: opts.audience } : {}),
    ...opts.claims,
  };
  const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(payload)}`;
  const sig = createHmac('sha256', opts.secret ?? TEST_JWT_SECRET)
    .update(head)
    .digest('base64url');
  return `${head}.${sig}`;
}

export interface ApiResult<T = any> {
  status: number;
  body: { success: boolean; data: T; error?: string; code?: string; [k: string]: unknown };
}

/** fetch against the test app with a bearer token (and optional organization header). */
export async function api<T = any>(
  app: Pick<TestApp, 'url'>,
  method: string,
  path: string,
  opts: { token?: string; orgId?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.orgId) headers['x-organization-id'] = opts.orgId;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = { raw: text };
  }
  return { status: res.status, body: body as ApiResult<T>['body'] };
}

async function must<T>(p: Promise<ApiResult<T>>, expected: number, what: string): Promise<T> {
  const r = await p;
  if (r.status !== expected)
    throw new Error(`${what}: expected HTTP ${expected}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

interface SeededUser {
  token: string;
  userId: string;
  sub: string;
  email: string;
}

export interface SeededTenant {
  orgId: string;
  projectId: string;
  admin: SeededUser;
  editor: SeededUser;
  viewer: SeededUser;
  /** Full-scope key (sl_live_...). */
  fullKey: string;
  fullKeyId: string;
  /** Public-scope key (sl_live_pub_...). */
  publicKey: string;
  publicKeyId: string;
  /** A full-scope key of the same project that has been revoked (is_active false). */
  revokedKey: string;
  revokedKeyId: string;
}

/**
 * A tenant built through the real API: an admin creates an organization (and, with `plan`, upgrades
 * it), a project, then invites an editor and a viewer who accept; finally a full, a public and a
 * revoked key for the project. Every call is the one a dashboard would make.
 */
export async function seedTenant(
  app: Pick<TestApp, 'url'>,
  opts: { plan?: string; name?: string } = {},
): Promise<SeededTenant> {
  const tag = randomBytes(4).toString('hex');
  const person = (role: string): Omit<SeededUser, 'userId'> => {
    const sub = `${role}-${tag}`;
    const email = `${role}-${tag}@example.test`;
    return { sub, email, token: mintJwt({ sub, email }) };
  };
  const a = person('admin');
  const org = await must(
    api(app, 'POST', '/api/v1/organizations', { token: a.token, body: { name: opts.name ?? `Org ${tag}` } }),
    201,
    'create organization',
  );
  const orgId: string = org.id;
  const asAdmin = { token: a.token, orgId };
  if (opts.plan && opts.plan !== 'free')
    await must(api(app, 'PATCH', '/api/v1/billing', { ...asAdmin, body: { plan: opts.plan } }), 200, 'change plan');
  const project = await must(
    api(app, 'POST', '/api/v1/projects', { ...asAdmin, body: { name: `Project ${tag}` } }),
    201,
    'create project',
  );

  const join = async (role: 'editor' | 'viewer'): Promise<SeededUser> => {
    const u = person(role);
    const inv = await must(
      api(app, 'POST', `/api/v1/organizations/${orgId}/invitations`, { ...asAdmin, body: { email: u.email, role } }),
      201,
      `invite ${role}`,
    );
    await must(
      api(app, 'POST', '/api/v1/invitations/accept', { token: u.token, body: { token: inv.token } }),
      200,
      `accept as ${role}`,
    );
    const me = await must(api(app, 'GET', '/api/v1/me', { token: u.token }), 200, `me as ${role}`);
    return { ...u, userId: me.user.id };
  };
  const editor = await join('editor');
  const viewer = await join('viewer');
  const adminMe = await must(api(app, 'GET', '/api/v1/me', { token: a.token }), 200, 'me as admin');

  const key = (scope: 'full' | 'public', name: string) =>
    must(
      api(app, 'POST', '/api/v1/api-keys', { ...asAdmin, body: { project_id: project.id, name, scope } }),
      201,
      `create ${name}`,
    );
  const full = await key('full', 'full key');
  const pub = await key('public', 'public key');
  const revoked = await key('full', 'revoked key');
  await must(
    api(app, 'PATCH', `/api/v1/api-keys/${revoked.id}`, { ...asAdmin, body: { is_active: false } }),
    200,
    'revoke key',
  );

  return {
    orgId,
    projectId: project.id,
    admin: { ...a, userId: adminMe.user.id },
    editor,
    viewer,
    fullKey: full.key,
    fullKeyId: full.id,
    publicKey: pub.key,
    publicKeyId: pub.id,
    revokedKey: revoked.key,
    revokedKeyId: revoked.id,
  };
}
