import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, requireRole } from '../../auth/middleware';
import { authUserOf, ROLES } from '../../auth/principal';
import type { AppContext } from '../../context';
import { parseBody, parseQuery } from '../../http/validate';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from '../../tenancy/invitations';
import { idParam, ok, userOf } from './common';

export const createInvitationBody = z.object({ email: z.email().max(320), role: z.enum(ROLES).default('viewer') }).strict();
export const listInvitationsQuery = z.object({ status: z.enum(['pending', 'accepted', 'revoked', 'expired']).optional() });
export const acceptInvitationBody = z.object({ token: z.string().min(1).max(200) }).strict();

/**
 * /api/v1/organizations/:orgId/invitations (admins) and /api/v1/invitations/... (the invitee).
 * Tokens travel in bodies, not paths, so they never land in access logs.
 */
export function invitationsRouter(ctx: AppContext): Router {
  const r = Router();
  const base = '/api/v1/organizations/:orgId/invitations';
  const admin = [requireJwt(ctx), requireRole('admin')];

  r.get(base, ...admin, async (req, res) => {
    const q = parseQuery(listInvitationsQuery, req);
    ok(res, await listInvitations(ctx.db, userOf(req).orgId, q.status));
  });
  r.post(base, ...admin, async (req, res) => {
    const body = parseBody(createInvitationBody, req);
    ok(res, await createInvitation(ctx.db, userOf(req), { ...body, ttlHours: ctx.config.INVITATION_TTL_HOURS }), 201);
  });
  r.delete(`${base}/:id`, ...admin, async (req, res) => {
    ok(res, await revokeInvitation(ctx.db, userOf(req), idParam(req, 'id', 'Invitation')));
  });

  const invitee = requireJwt(ctx, { org: 'none' });
  r.post('/api/v1/invitations/accept', invitee, async (req, res) => {
    const body = parseBody(acceptInvitationBody, req);
    ok(res, await acceptInvitation(ctx.db, authUserOf(req), { token: body.token }));
  });
  r.post('/api/v1/invitations/:id/accept', invitee, async (req, res) => {
    ok(res, await acceptInvitation(ctx.db, authUserOf(req), { id: idParam(req, 'id', 'Invitation') }));
  });
  return r;
}
