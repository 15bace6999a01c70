import type { Request, Response } from 'express';
import { z } from 'zod';
import { principalOf, type Principal } from '../../auth/principal';
import { isUuid } from '../../auth/middleware';
import { forbidden, notFound } from '../../http/errors';

export const ok = (res: Response, data: unknown, status = 200) => res.status(status).json({ success: true, data });

/** A path id that must be a UUID; anything else is simply "not found" (never a 500). */
export function idParam(req: Request, name: string, what: string): string {
  const v = req.params[name];
  if (!isUuid(v)) throw notFound(what);
  return v.toLowerCase();
}

export function userOf(req: Request): Principal & { kind: 'user' } {
  const p = principalOf(req);
  if (p.kind !== 'user') throw forbidden('This endpoint needs a user token (JWT)', 'jwt_required');
  return p;
}

export const nameSchema = z.string().trim().min(1, 'must not be empty').max(200);
export const uuidSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID');
