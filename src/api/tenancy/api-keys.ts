import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, requireRole, resolveProjectScope } from '../../auth/middleware';
import type { AppContext } from '../../context';
import { parseBody } from '../../http/validate';
import { createApiKey, deleteApiKey, getApiKey, listApiKeys, updateApiKey } from '../../tenancy/api-keys';
import { requireProject } from '../../tenancy/projects/service';
import { idParam, ok, userOf, uuidSchema } from './common';

export const createApiKeyBody = z
  .object({
    project_id: uuidSchema,
    name: z.string().trim().min(1).max(200).default('API key'),
    scope: z.enum(['full', 'public']).default('full'),
  })
  .strict();
export const updateApiKeyBody = z
  .object({ name: z.string().trim().min(1).max(200).optional(), is_active: z.boolean().optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.is_active !== undefined, 'send name and/or is_active');

/** /api/v1/api-keys: per-project service keys; writes need admin or editor. */
export function apiKeysRouter(ctx: AppContext): Router {
  const r = Router();
  const base = '/api/v1/api-keys';
  const auth = requireJwt(ctx);
  const writer = requireRole('admin', 'editor');

  r.get(base, auth, async (req, res) => {
    const scope = await resolveProjectScope(ctx, req);
    ok(res, await listApiKeys(ctx.db, scope.orgId, scope.projectIds));
  });
  r.post(base, auth, writer, async (req, res) => {
    const body = parseBody(createApiKeyBody, req);
    const actor = userOf(req);
    await requireProject(ctx.db, actor.orgId, body.project_id.toLowerCase());
    ok(res, await createApiKey(ctx.db, actor, { projectId: body.project_id.toLowerCase(), name: body.name, scope: body.scope }), 201);
  });
  r.get(`${base}/:id`, auth, async (req, res) => ok(res, await getApiKey(ctx.db, userOf(req).orgId, idParam(req, 'id', 'API key'))));
  r.patch(`${base}/:id`, auth, writer, async (req, res) => {
    const id = idParam(req, 'id', 'API key');
    ok(res, await updateApiKey(ctx.db, userOf(req), id, parseBody(updateApiKeyBody, req)));
  });
  r.delete(`${base}/:id`, auth, writer, async (req, res) => {
    const id = idParam(req, 'id', 'API key');
    await deleteApiKey(ctx.db, userOf(req), id);
    ok(res, { id, deleted: true });
  });
  return r;
}
