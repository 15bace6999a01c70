import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Db } from '../db/knex';
import { badRequest, forbidden, HttpError, notFound } from '../http/errors';
import { isUuid } from '../http/ids';
import type { Scope } from '../http/route';
import { createApiKeyAuthenticator, looksLikeApiKey, type ApiKeyRecord } from './api-keys';
import type { JwtVerifier } from './jwt';
import type { AuthUser, Principal } from './principal';
import { firstOrganizations, membershipRole, projectIdsOfOrg, projectOfOrg } from './queries';
import type { UserDirectory } from './users';

const ORG_HEADER = 'x-organization-id';

const challenge = { 'www-authenticate': 'Bearer' };
const missingCredentials = () =>
  new HttpError(401, 'unauthorized', 'Missing credentials: send Authorization: Bearer <token>', {}, challenge);
const apiKeyRequired = () =>
  new HttpError(401, 'api_key_required', 'This endpoint needs a service API key (sl_live_...)', {}, challenge);

function bearerToken(req: Request): string | null {
  const h = req.header('authorization');
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  if (!m) throw new HttpError(401, 'unauthorized', 'Authorization header must be "Bearer <token>"', {}, challenge);
  return m[1]!;
}

const keyPrincipal = (k: ApiKeyRecord): Principal => ({
  kind: 'api_key',
  keyId: k.id,
  projectId: k.projectId,
  orgId: k.orgId,
  scope: k.scope,
});

const wrap =
  (fn: (req: Request, res: Response, next: NextFunction) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req, res, next).catch(next);
  };

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AuthDeps {
  db: Db;
  verifyJwt: JwtVerifier;
  users: UserDirectory;
}

/** The authentication middleware of one runtime (one JWT verifier and JWKS cache, one user cache). */
export function createAuth({ db, verifyJwt, users }: AuthDeps) {
  const apiKeys = createApiKeyAuthenticator(db);

  /** Verifies the JWT and provisions the user on first sight. */
  async function authenticateUser(token: string): Promise<AuthUser> {
    const id = await verifyJwt(token);
    const user = await users.provision(id.sub, id.email);
    return { userId: user.id, sub: id.sub, email: id.email ?? user.email, emailVerified: id.emailVerified };
  }

  async function activeKey(token: string): Promise<ApiKeyRecord> {
    const key = await apiKeys.authenticate(token);
    if (!key) throw new HttpError(401, 'invalid_api_key', 'API key is not valid', {}, challenge);
    if (!key.isActive) throw new HttpError(401, 'api_key_revoked', 'API key has been revoked', {}, challenge);
    return key;
  }

  /**
   * The organization of a JWT call: the `:orgId` path parameter when the route has one, else
   * `X-Organization-Id`, else the caller's only organization. Non-members get 404 (no existence leak).
   */
  async function userPrincipal(req: Request, user: AuthUser): Promise<Principal> {
    const fromPath = req.params?.orgId;
    const fromHeader = req.header(ORG_HEADER);
    let orgId: string;
    if (fromPath !== undefined) {
      if (!isUuid(fromPath)) throw notFound('Organization');
      orgId = fromPath.toLowerCase();
    } else if (fromHeader) {
      if (!isUuid(fromHeader))
        throw badRequest('X-Organization-Id must be an organization UUID', 'invalid_organization_header');
      orgId = fromHeader.toLowerCase();
    } else {
      const orgs = await firstOrganizations(db, user.userId);
      if (orgs.length !== 1) {
        throw badRequest(
          orgs.length === 0
            ? 'You do not belong to any organization yet: create one with POST /api/v1/organizations'
            : 'You belong to several organizations: send the X-Organization-Id header to choose one',
          'organization_required',
          { header: 'X-Organization-Id' },
        );
      }
      orgId = orgs[0]!.org_id;
    }
    const role = await membershipRole(db, orgId, user.userId);
    if (!role) throw notFound('Organization');
    return { kind: 'user', userId: user.userId, sub: user.sub, email: user.email, orgId, role };
  }

  return {
    authenticateUser,

    /** Dashboard endpoints: JWT only, with organization context unless `{org:'none'}`. */
    jwt: (opts: { org?: 'auto' | 'none' } = {}): RequestHandler =>
      wrap(async (req, _res, next) => {
        const token = bearerToken(req);
        if (!token) throw missingCredentials();
        if (looksLikeApiKey(token)) {
          // A valid API key on a user-only endpoint is a known identity without the right: 403.
          await activeKey(token);
          throw forbidden('This endpoint needs a user token (JWT); API keys are not accepted here', 'jwt_required');
        }
        const user = await authenticateUser(token);
        req.authUser = user;
        if (opts.org !== 'none') req.principal = await userPrincipal(req, user);
        next();
      }),

    /**
     * Proxy, ingest and OTLP: an active full-scope key. Besides `Authorization: Bearer`, the key may
     * come in `x-api-key` or `x-goog-api-key`, where the Anthropic and Gemini SDKs put it.
     */
    fullKey: wrap(async (req, _res, next) => {
      const token = bearerToken(req) ?? req.header('x-api-key') ?? req.header('x-goog-api-key') ?? null;
      if (!token) throw missingCredentials();
      if (!looksLikeApiKey(token)) throw apiKeyRequired();
      const key = await activeKey(token);
      if (key.scope !== 'full')
        throw forbidden('Public keys are read-only: this endpoint needs a full-scope API key', 'full_key_required');
      req.principal = keyPrincipal(key);
      next();
    }),

    /** Dual-auth endpoints: a JWT (with organization context), a full key, or a public key on reads only. */
    read: wrap(async (req, _res, next) => {
      const token = bearerToken(req);
      if (!token) throw missingCredentials();
      if (looksLikeApiKey(token)) {
        const key = await activeKey(token);
        if (key.scope === 'public' && !READ_METHODS.has(req.method))
          throw forbidden('Public keys are read-only', 'public_key_read_only');
        req.principal = keyPrincipal(key);
      } else {
        const user = await authenticateUser(token);
        req.authUser = user;
        req.principal = await userPrincipal(req, user);
      }
      next();
    }),

    /** Endpoints reachable only with an API key (key introspection): full or public. */
    apiKey: wrap(async (req, _res, next) => {
      const token = bearerToken(req);
      if (!token) throw missingCredentials();
      if (!looksLikeApiKey(token)) throw apiKeyRequired();
      req.principal = keyPrincipal(await activeKey(token));
      next();
    }),

    /**
     * Projects a read may see. API keys are bound to their project (a different `project_id` is
     * 404); users see every project of the organization, or the one named by `project_id`.
     */
    async projectScope(p: Principal, asked?: unknown): Promise<Scope> {
      if (asked !== undefined && asked !== '' && asked !== null) {
        if (!isUuid(asked)) throw notFound('Project');
        const id = asked.toLowerCase();
        if (p.kind === 'api_key') {
          if (id !== p.projectId) throw notFound('Project');
          return { orgId: p.orgId, projectIds: [p.projectId] };
        }
        const row = await projectOfOrg(db, p.orgId, id);
        if (!row) throw notFound('Project');
        return { orgId: p.orgId, projectIds: [row.id] };
      }
      if (p.kind === 'api_key') return { orgId: p.orgId, projectIds: [p.projectId] };
      return { orgId: p.orgId, projectIds: await projectIdsOfOrg(db, p.orgId) };
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;
