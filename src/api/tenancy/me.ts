import { Router } from 'express';
import { requireApiKey, requireJwt } from '../../auth/middleware';
import { authUserOf, principalOf } from '../../auth/principal';
import type { AppContext } from '../../context';
import { listPendingInvitationsFor } from '../../tenancy/invitations';
import { listMyOrganizations } from '../../tenancy/organizations';
import { ok } from './common';

/** /api/v1/me (user) and /api/v1/me/key-info (API key introspection). */
export function meRouter(ctx: AppContext): Router {
  const r = Router();

  r.get('/api/v1/me', requireJwt(ctx, { org: 'none' }), async (req, res) => {
    const u = authUserOf(req);
    ok(res, { user: { id: u.userId, sub: u.sub, email: u.email }, organizations: await listMyOrganizations(ctx.db, u.userId) });
  });

  r.get('/api/v1/me/invitations', requireJwt(ctx, { org: 'none' }), async (req, res) => {
    ok(res, await listPendingInvitationsFor(ctx.db, authUserOf(req)));
  });

  r.get('/api/v1/me/key-info', requireApiKey(ctx), async (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'api_key') throw new Error('unreachable');
    const row = await ctx.db('api_keys as k')
      .join('projects as p', 'p.id', 'k.project_id')
      .join('organizations as o', 'o.id', 'k.org_id')
      .where('k.id', p.keyId)
      .select('k.id', 'k.name', 'k.scope', 'k.prefix', 'k.last4', 'k.is_active', 'k.created_at', 'k.last_used_at', 'p.id as project_id', 'p.name as project_name', 'o.id as org_id', 'o.name as org_name', 'o.plan')
      .first();
    ok(res, {
      key: { id: row.id, name: row.name, scope: row.scope, prefix: row.prefix, last4: row.last4, created_at: row.created_at, last_used_at: row.last_used_at },
      status: row.is_active ? 'active' : 'revoked',
      is_active: row.is_active,
      scope: row.scope,
      project: { id: row.project_id, name: row.project_name },
      organization: { id: row.org_id, name: row.org_name, plan: row.plan },
    });
  });
  return r;
}
