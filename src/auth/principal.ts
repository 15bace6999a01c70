import type { Request } from 'express';
import { forbidden, unauthorized } from '../http/errors';

export const ROLES = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export type ApiKeyScope = 'full' | 'public';

/** Who is calling: a signed-in user acting in one organization, or a project API key. */
export type Principal =
  | { kind: 'user'; userId: string; sub: string; email: string | null; orgId: string; role: Role }
  | { kind: 'api_key'; keyId: string; projectId: string; orgId: string; scope: ApiKeyScope };

/** A user authenticated by JWT, before (or without) an organization context. */
export interface AuthUser {
  userId: string;
  sub: string;
  email: string | null;
  emailVerified: boolean | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    authUser?: AuthUser;
  }
}

/** The caller set by the auth middleware; 401 when a route forgot to mount it. */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw unauthorized();
  return req.principal;
}

/** The user behind a JWT route's principal; API keys never reach JWT routes, so this is a guard. */
export function asUser(p: Principal): Principal & { kind: 'user' } {
  if (p.kind !== 'user') throw forbidden('This endpoint needs a user token (JWT)', 'jwt_required');
  return p;
}

/** The JWT user (with or without organization context); 401 when absent. */
export function authUserOf(req: Request): AuthUser {
  if (!req.authUser) throw unauthorized();
  return req.authUser;
}

/** A short label for logs and audit rows. */
export function actorLabel(p: Principal): string {
  return p.kind === 'user' ? (p.email ?? p.sub) : `api_key:${p.keyId}`;
}
