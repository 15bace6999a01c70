import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type { AppContext } from '../context';
import { badRequest, forbidden, HttpError, notFound, unauthorized } from '../http/errors';
import { authenticateApiKey, looksLikeApiKey, type ApiKeyRecord } from '../keys/api-keys';
import { provisionUser } from '../tenancy/users';
import { createJwtVerifier, type JwtVerifier } from './jwt';
import type { AuthUser, Principal, Role } from './principal';

export const ORG_HEADER = 'x-organization-id';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s);

const challenge = { 'www-authenticate': 'Bearer' };
const missingCredentials = () =>
  new HttpError(401, 'unauthorized', 'Missing credentials: send Authorization: Bearer <token>', {}, challenge);

// One verifier (and so one cached JWKS) per application context.
const verifiers = new WeakMap<AppContext, JwtVerifier>();
function verifierFor(ctx: AppContext): JwtVerifier {
  let v = verifiers.get(ctx);
  if (!v) verifiers.set(ctx, (v = createJwtVerifier(ctx.config)));
  return v;
}

export function bearerToken(req: Request): string | null {
  const h = req.header('authorization');
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  if (!m) throw new HttpError(401, 'unauthorized', 'Authorization header must be "Bearer <token>"', {}, challenge);
  return m[1]!;
}

/** Verifies the JWT and provisions the user on first sight. */
export async function authenticateUser(ctx: AppContext, token: string): Promise<AuthUser> {
  const id = await verifierFor(ctx)(token);
  const user = await provisionUser(ctx.db, id.sub, id.email);
  return { userId: user.id, sub: id.sub, email: id.email ?? user.email, emailVerified: id.emailVerified };
}

async function activeKey(ctx: AppContext, token: string): Promise<ApiKeyRecord> {
  const key = await authenticateApiKey(ctx.db, token);
  if (!key) throw new HttpError(401, 'invalid_api_key', 'API key is not valid', {}, challenge);
  if (!key.isActive) throw new HttpError(401, 'api_key_revoked', 'API key has been revoked', {}, challenge);
  return key;
}

const keyPrincipal = (k: ApiKeyRecord): Principal => ({ kind: 'api_key', keyId: k.id, projectId: k.projectId, orgId: k.orgId, scope: k.scope });

export async function membershipRole(db: Knex, orgId: string, userId: string): Promise<Role | null> {
  const row = await db('memberships').select('role').where({ org_id: orgId, user_id: userId }).first();
  return (row?.role as Role | undefined) ?? null;
}

/**
 * Picks the organization for a JWT call: the `:orgId` path parameter when the route has one, else
 * `X-Organization-Id`, else the caller's only organization. Non-members get 404 (no existence leak).
 */
async function userPrincipal(ctx: AppContext, req: Request, user: AuthUser): Promise<Principal> {
  const fromPath = req.params?.orgId;
  const fromHeader = req.header(ORG_HEADER);
  let orgId: string;
  if (fromPath !== undefined) {
    if (!isUuid(fromPath)) throw notFound('Organization');
    orgId = fromPath;
  } else if (fromHeader) {
    if (!isUuid(fromHeader)) throw badRequest('X-Organization-Id must be an organization UUID', 'invalid_organization_header');
    orgId = fromHeader;
  } else {
    const orgs = await ctx.db('memberships').select('org_id').where({ user_id: user.userId }).limit(2);
    if (orgs.length !== 1) {
      throw badRequest(
        orgs.length === 0
          ? 'You do not belong to any organization yet: create one with POST /api/v1/organizations'
          : 'You belong to several organizations: send the X-Organization-Id header to choose one',
        'organization_required',
        { header: 'X-Organization-Id' },
      );
    }
    orgId = orgs[0].org_id;
  }
  const role = await membershipRole(ctx.db, orgId, user.userId);
  if (!role) throw notFound('Organization');
  return { kind: 'user', userId: user.userId, sub: user.sub, email: user.email, orgId, role };
}

type Handler = (req: Request, res: Response, next: NextFunction) => Promise<void>;
const wrap =
  (fn: Handler): RequestHandler =>
  (req, res, next) => {
    fn(req, res, next).catch(next);
  };

/** A valid API key on a user-only endpoint is a known identity without the right: 403; anything else 401. */
async function rejectApiKeyOnJwtRoute(ctx: AppContext, token: string): Promise<never> {
  await activeKey(ctx, token);
  throw forbidden('This endpoint needs a user token (JWT); API keys are not accepted here', 'jwt_required');
}

export interface RequireJwtOptions {
  /** 'auto' (default): path `:orgId`, header or only organization. 'none': user only, no organization context (req.authUser). */
  org?: 'auto' | 'none';
}

/** Dashboard endpoints: JWT only, with organization context unless `{org:'none'}`. */
export function requireJwt(ctx: AppContext, opts: RequireJwtOptions = {}): RequestHandler {
  return wrap(async (req, _res, next) => {
    const token = bearerToken(req);
    if (!token) throw missingCredentials();
    if (looksLikeApiKey(token)) await rejectApiKeyOnJwtRoute(ctx, token);
    const user = await authenticateUser(ctx, token);
    req.authUser = user;
    if (opts.org !== 'none') req.principal = await userPrincipal(ctx, req, user);
    next();
  });
}

/**
 * Proxy, ingest and OTLP: an active full-scope key. Besides `Authorization: Bearer`, the key may come
 * in `x-api-key` or `x-goog-api-key`, where the Anthropic and Gemini SDKs put it.
 */
export function requireFullKey(ctx: AppContext): RequestHandler {
  return wrap(async (req, _res, next) => {
    const token = bearerToken(req) ?? req.header('x-api-key') ?? req.header('x-goog-api-key') ?? null;
    if (!token) throw missingCredentials();
    if (!looksLikeApiKey(token)) throw new HttpError(401, 'api_key_required', 'This endpoint needs a service API key (sl_live_...)', {}, challenge);
    const key = await activeKey(ctx, token);
    if (key.scope !== 'full') throw forbidden('Public keys are read-only: this endpoint needs a full-scope API key', 'full_key_required');
    req.principal = keyPrincipal(key);
    next();
  });
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Dual-auth endpoints: a JWT (with organization context), a full key, or a public key on reads only. */
export function requireReadAccess(ctx: AppContext): RequestHandler {
  return wrap(async (req, _res, next) => {
    const token = bearerToken(req);
    if (!token) throw missingCredentials();
    if (looksLikeApiKey(token)) {
      const key = await activeKey(ctx, token);
      if (key.scope === 'public' && !READ_METHODS.has(req.method)) {
        throw forbidden('Public keys are read-only', 'public_key_read_only');
      }
      req.principal = keyPrincipal(key);
    } else {
      const user = await authenticateUser(ctx, token);
      req.authUser = user;
      req.principal = await userPrincipal(ctx, req, user);
    }
    next();
  });
}

/** Endpoints reachable only with an API key (key introspection): full or public. */
export function requireApiKey(ctx: AppContext): RequestHandler {
  return wrap(async (req, _res, next) => {
    const token = bearerToken(req);
    if (!token) throw missingCredentials();
    if (!looksLikeApiKey(token)) throw new HttpError(401, 'api_key_required', 'This endpoint needs a service API key (sl_live_...)', {}, challenge);
    req.principal = keyPrincipal(await activeKey(ctx, token));
    next();
  });
}

/** After requireJwt/requireReadAccess: the user must have one of these roles (API keys never do). */
export function requireRole(...roles: Role[]): RequestHandler {
  return (req, _res, next) => {
    const p = req.principal;
    if (!p) return next(unauthorized());
    if (p.kind !== 'user') return next(forbidden('This action needs a user token (JWT) with a suitable role', 'jwt_required'));
    if (!roles.includes(p.role)) return next(forbidden(`This action needs role ${roles.join(' or ')}; you are ${p.role}`, 'insufficient_role'));
    next();
  };
}

/** Evals-style writes: a full-scope key, or a user who is admin or editor. */
export function requireWriteAccess(): RequestHandler {
  return (req, _res, next) => {
    const p = req.principal;
    if (!p) return next(unauthorized());
    if (p.kind === 'api_key') {
      return next(p.scope === 'full' ? undefined : forbidden('Public keys are read-only', 'public_key_read_only'));
    }
    if (p.role === 'admin' || p.role === 'editor') return next();
    next(forbidden(`This action needs role admin or editor; you are ${p.role}`, 'insufficient_role'));
  };
}

/** True when the principal may write (full key or admin/editor); for handlers mixing reads and writes. */
export const canWrite = (p: Principal) => (p.kind === 'api_key' ? p.scope === 'full' : p.role === 'admin' || p.role === 'editor');

/**
 * Projects a read may see. API keys are bound to their project (a different `project_id` is 404);
 * users see every project of the organization, or the one named by `project_id` (query or body).
 */
export async function resolveProjectScope(ctx: AppContext, req: Request): Promise<{ orgId: string; projectIds: string[] }> {
  const p = req.principal;
  if (!p) throw unauthorized();
  const asked = (req.query?.project_id ?? (req.body as Record<string, unknown> | undefined)?.project_id) as unknown;
  if (asked !== undefined && asked !== '') {
    if (!isUuid(asked)) throw notFound('Project');
    if (p.kind === 'api_key') {
      if (asked !== p.projectId) throw notFound('Project');
      return { orgId: p.orgId, projectIds: [p.projectId] };
    }
    const row = await ctx.db('projects').select('id').where({ id: asked, org_id: p.orgId }).first();
    if (!row) throw notFound('Project');
    return { orgId: p.orgId, projectIds: [row.id] };
  }
  if (p.kind === 'api_key') return { orgId: p.orgId, projectIds: [p.projectId] };
  const rows = await ctx.db('projects').select('id').where({ org_id: p.orgId }).orderBy('created_at');
  return { orgId: p.orgId, projectIds: rows.map((r) => r.id as string) };
}
