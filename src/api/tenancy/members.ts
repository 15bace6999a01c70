import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, requireRole } from '../../auth/middleware';
import { ROLES } from '../../auth/principal';
import type { AppContext } from '../../context';
import { parseBody } from '../../http/validate';
import { changeMemberRole, listMembers, removeMember } from '../../tenancy/members';
import { idParam, ok, userOf } from './common';

export const changeRoleBody = z.object({ role: z.enum(ROLES) }).strict();

/** /api/v1/organizations/:orgId/members: any member reads; admins write. */
export function membersRouter(ctx: AppContext): Router {
  const r = Router();
  const base = '/api/v1/organizations/:orgId/members';
  const auth = requireJwt(ctx);
  const admin = requireRole('admin');

  r.get(base, auth, async (req, res) => ok(res, await listMembers(ctx.db, userOf(req).orgId)));
  const change = async (req: import('express').Request, res: import('express').Response) => {
    const userId = idParam(req, 'userId', 'Member');
    const body = parseBody(changeRoleBody, req);
    ok(res, await changeMemberRole(ctx.db, userOf(req), userId, body.role));
  };
  r.patch(`${base}/:userId`, auth, admin, change);
  r.put(`${base}/:userId`, auth, admin, change);
  r.delete(`${base}/:userId`, auth, admin, async (req, res) => {
    const userId = idParam(req, 'userId', 'Member');
    await removeMember(ctx.db, userOf(req), userId);
    ok(res, { user_id: userId, removed: true });
  });
  return r;
}
