import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, requireRole } from '../../auth/middleware';
import { authUserOf } from '../../auth/principal';
import type { AppContext } from '../../context';
import { notFound } from '../../http/errors';
import { parseBody } from '../../http/validate';
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listMyOrganizations,
  renameOrganization,
  transferOwnership,
} from '../../tenancy/organizations';
import { idParam, nameSchema, ok, userOf, uuidSchema } from './common';

export const createOrganizationBody = z.object({ name: nameSchema }).strict();
export const updateOrganizationBody = z.object({ name: nameSchema }).strict();
export const transferOwnershipBody = z.object({ user_id: uuidSchema }).strict();

/** /api/v1/organizations: workspaces of the caller. */
export function organizationsRouter(ctx: AppContext): Router {
  const r = Router();
  const base = '/api/v1/organizations';
  const member = requireJwt(ctx);

  r.get(base, requireJwt(ctx, { org: 'none' }), async (req, res) => {
    ok(res, await listMyOrganizations(ctx.db, authUserOf(req).userId));
  });

  r.post(base, requireJwt(ctx, { org: 'none' }), async (req, res) => {
    const body = parseBody(createOrganizationBody, req);
    ok(res, await createOrganization(ctx.db, authUserOf(req), body.name), 201);
  });

  r.get(`${base}/:orgId`, member, async (req, res) => {
    const p = userOf(req);
    const org = await getOrganization(ctx.db, idParam(req, 'orgId', 'Organization'));
    if (!org) throw notFound('Organization');
    ok(res, { ...org, role: p.role, is_owner: org.owner_user_id === p.userId });
  });

  r.patch(`${base}/:orgId`, member, requireRole('admin'), async (req, res) => {
    const body = parseBody(updateOrganizationBody, req);
    const p = userOf(req);
    ok(res, await renameOrganization(ctx.db, p, p.orgId, body.name));
  });

  r.delete(`${base}/:orgId`, member, requireRole('admin'), async (req, res) => {
    const p = userOf(req);
    await deleteOrganization(ctx.db, p, p.orgId);
    ok(res, { id: p.orgId, deleted: true });
  });

  r.post(`${base}/:orgId/transfer-ownership`, member, requireRole('admin'), async (req, res) => {
    const body = parseBody(transferOwnershipBody, req);
    const p = userOf(req);
    ok(res, await transferOwnership(ctx.db, p, p.orgId, body.user_id.toLowerCase()));
  });

  return r;
}
