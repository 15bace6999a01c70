import { Router } from 'express';
import { z } from 'zod';
import { recordAudit } from '../../audit/audit';
import { requireJwt, requireRole, resolveProjectScope } from '../../auth/middleware';
import type { AppContext } from '../../context';
import { badRequest, notFound } from '../../http/errors';
import { parseBody } from '../../http/validate';
import { resolveMasterKey } from '../../keys/crypto';
import {
  baseUrlSchema,
  findProviderKey,
  KEYLESS_PROVIDERS,
  listProviderKeys,
  providerSlugSchema,
  upsertProviderKey,
  useKeyring,
} from '../../keys/provider-keys';
import { requireProject } from '../../tenancy/projects/service';
import { idParam, ok, userOf, uuidSchema } from './common';

export const upsertProviderKeyBody = z
  .object({
    project_id: uuidSchema,
    provider: providerSlugSchema,
    api_key: z.string().trim().min(1).max(4096).optional(),
    base_url: baseUrlSchema.nullable().optional(),
  })
  .strict();

/** /api/v1/provider-keys: upstream credentials per project and provider, encrypted at rest. */
export function providerKeysRouter(ctx: AppContext): Router {
  // Fails start-up in production roles without MASTER_KEY, naming it.
  const ring = resolveMasterKey(ctx.config);
  useKeyring(ctx.db, ring);

  const r = Router();
  const base = '/api/v1/provider-keys';
  const auth = requireJwt(ctx);
  const writer = requireRole('admin', 'editor');

  r.get(base, auth, async (req, res) => {
    const scope = await resolveProjectScope(ctx, req);
    ok(res, await listProviderKeys(ctx.db, scope.orgId, scope.projectIds));
  });

  // POST and PUT both create or replace the single entry of (project, provider).
  const upsert = async (req: import('express').Request, res: import('express').Response) => {
    const body = parseBody(upsertProviderKeyBody, req);
    if (!body.api_key && !KEYLESS_PROVIDERS.has(body.provider)) {
      throw badRequest(`Invalid body.api_key: required for provider ${body.provider}`, 'validation_error');
    }
    const actor = userOf(req);
    const projectId = body.project_id.toLowerCase();
    await requireProject(ctx.db, actor.orgId, projectId);
    const result = await ctx.db.transaction(async (trx) => {
      const out = await upsertProviderKey(trx, ring, {
        orgId: actor.orgId,
        projectId,
        provider: body.provider,
        apiKey: body.api_key ?? null,
        baseUrl: body.base_url ?? null,
        createdBy: actor.userId,
      });
      await recordAudit(trx, {
        orgId: actor.orgId,
        actor,
        action: out.created ? 'provider_key.created' : 'provider_key.replaced',
        resourceType: 'provider_key',
        resourceId: out.view.id,
        before: out.before ?? undefined,
        after: out.view,
      });
      return out;
    });
    ok(res, result.view, result.created ? 201 : 200);
  };
  r.post(base, auth, writer, upsert);
  r.put(base, auth, writer, upsert);

  r.get(`${base}/:id`, auth, async (req, res) => {
    const row = await findProviderKey(ctx.db, userOf(req).orgId, idParam(req, 'id', 'Provider key'));
    if (!row) throw notFound('Provider key');
    ok(res, row);
  });

  r.delete(`${base}/:id`, auth, writer, async (req, res) => {
    const id = idParam(req, 'id', 'Provider key');
    const actor = userOf(req);
    await ctx.db.transaction(async (trx) => {
      const before = await findProviderKey(trx, actor.orgId, id);
      if (!before) throw notFound('Provider key');
      await trx('provider_keys').where({ id }).delete();
      await recordAudit(trx, { orgId: actor.orgId, actor, action: 'provider_key.deleted', resourceType: 'provider_key', resourceId: id, before });
    });
    ok(res, { id, deleted: true });
  });
  return r;
}
