import type { RequestHandler } from 'express';
import { forbidden, unauthorized } from './errors';
import type { Principal, Role } from './principal';
import type { Scope } from './route';

/**
 * The middleware of each auth scheme a route contract may name (docs/auth.md). src/auth/ implements
 * it (`Auth` from createAuth); src/http/ depends on this shape only, so http never imports auth.
 */
export interface SchemeGuards {
  jwt(opts?: { org?: 'auto' | 'none' }): RequestHandler;
  read: RequestHandler;
  apiKey: RequestHandler;
  fullKey: RequestHandler;
  /** The caller's scope, narrowed to one project when `asked` names one (404 when not theirs). */
  projectScope(p: Principal, asked?: unknown): Promise<Scope>;
}

/** After jwt/read: the user must have one of these roles (API keys never do). */
export function requireRole(...roles: readonly Role[]): RequestHandler {
  return (req, _res, next) => {
    const p = req.principal;
    if (!p) return next(unauthorized());
    if (p.kind !== 'user')
      return next(forbidden('This action needs a user token (JWT) with a suitable role', 'jwt_required'));
    if (!roles.includes(p.role))
      return next(forbidden(`This action needs role ${roles.join(' or ')}; you are ${p.role}`, 'insufficient_role'));
    next();
  };
}

/** Evals-style writes: a full-scope key, or a user who is admin or editor. */
export function requireWriteAccess(): RequestHandler {
  return (req, _res, next) => {
    const p = req.principal;
    if (!p) return next(unauthorized());
    if (p.kind === 'api_key')
      return next(p.scope === 'full' ? undefined : forbidden('Public keys are read-only', 'public_key_read_only'));
    if (p.role === 'admin' || p.role === 'editor') return next();
    next(forbidden(`This action needs role admin or editor; you are ${p.role}`, 'insufficient_role'));
  };
}
