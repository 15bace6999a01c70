import type { Request } from 'express';
import { forbidden, unauthorized } from '../http/errors';
import type { AuthUser, Principal } from '../http/principal';

// Defined with the route contracts (src/http/principal.ts); features import them from here.
export { ROLES, type ApiKeyScope, type AuthUser, type Principal, type Role } from '../http/principal';

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
