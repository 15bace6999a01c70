import { Router } from 'express';
import { z } from 'zod';
import { isUuid, requireJwt, requireRole, resolveProjectScope } from '../auth/middleware';
import { principalOf } from '../auth/principal';
import { recordAudit } from '../audit/audit';
import type { AppContext } from '../context';
import { badRequest, notFound } from '../http/errors';
import { parseBody, parseParams, parseQuery } from '../http/validate';
import { addVersion, createPrompt, createPromptSchema, deletePrompt, getPrompt, listPrompts, listVersions, resolvePromptRef, versionInputSchema } from '../prompts/service';
import { parsePromptRef } from '../proxy/service-headers';

/**
 * Prompts (JWT; writes need admin or editor):
 *   GET    /api/v1/prompts?project_id=            list
 *   POST   /api/v1/prompts                        create {project_id, name, description?, version?}
 *   GET    /api/v1/prompts/resolve?ref=&project_id=  one version by name@version, name@latest or version id
 *   GET    /api/v1/prompts/:id                    prompt with its versions
 *   POST   /api/v1/prompts/:id/versions           add an immutable version (next integer)
 *   GET    /api/v1/prompts/:id/versions/:version  one version (integer or "latest")
 *   DELETE /api/v1/prompts/:id                    delete prompt and versions (logged requests keep their rows)
 */
const idParams = z.object({ id: z.string() });
const versionParams = z.object({ id: z.string(), version: z.string().regex(/^([1-9]\d{0,8}|latest)$/, 'a positive integer or latest') });
const resolveQuery = z.object({ ref: z.string().min(1).max(300), project_id: z.string().optional() });
const listQuery = z.object({ project_id: z.string().optional() });

export function promptsRouter(ctx: AppContext): Router {
  const router = Router();
  const jwt = requireJwt(ctx);
  const writer = requireRole('admin', 'editor');

  router.get('/api/v1/prompts', jwt, async (req, res) => {
    parseQuery(listQuery, req);
    const scope = await resolveProjectScope(ctx, req);
    res.json({ success: true, data: await listPrompts(ctx.db, scope.projectIds) });
  });

  router.post('/api/v1/prompts', jwt, writer, async (req, res) => {
    const body = parseBody(createPromptSchema, req);
    const scope = await resolveProjectScope(ctx, req); // 404 unless the project is in the caller's organization
    const p = principalOf(req);
    const created = await ctx.db.transaction(async (trx) => {
      const out = await createPrompt(trx, {
        orgId: scope.orgId,
        projectId: scope.projectIds[0]!,
        name: body.name,
        description: body.description ?? null,
        createdBy: p.kind === 'user' ? p.userId : null,
        version: body.version,
      });
      await recordAudit(trx, { orgId: scope.orgId, actor: p, action: 'prompt.created', resourceType: 'prompt', resourceId: out.prompt.id, after: out });
      return out;
    });
    res.status(201).json({ success: true, data: { ...created.prompt, versions: created.version ? [created.version] : [] } });
  });

  router.get('/api/v1/prompts/resolve', jwt, async (req, res) => {
    const q = parseQuery(resolveQuery, req);
    const ref = parsePromptRef(q.ref);
    if (!ref) throw badRequest('ref must be <name>@<version>, <name>@latest or a prompt-version UUID', 'invalid_prompt_version');
    const scope = await resolveProjectScope(ctx, req);
    if (ref.kind === 'name' && scope.projectIds.length > 1) {
      throw badRequest('Prompt names are per project: pass project_id', 'project_required', { field: 'project_id' });
    }
    const v = await resolvePromptRef(ctx.db, scope.projectIds, ref);
    if (!v) throw notFound('Prompt version', 'prompt_version_not_found');
    res.json({ success: true, data: v });
  });

  async function findPrompt(req: Parameters<Parameters<typeof router.get>[1]>[0]) {
    const { id } = parseParams(idParams, req);
    if (!isUuid(id)) throw notFound('Prompt');
    const scope = await resolveProjectScope(ctx, req);
    const prompt = await getPrompt(ctx.db, scope.projectIds, id);
    if (!prompt) throw notFound('Prompt');
    return { prompt, scope };
  }

  router.get('/api/v1/prompts/:id', jwt, async (req, res) => {
    const { prompt } = await findPrompt(req);
    res.json({ success: true, data: { ...prompt, versions: await listVersions(ctx.db, prompt.id) } });
  });

  router.post('/api/v1/prompts/:id/versions', jwt, writer, async (req, res) => {
    const input = parseBody(versionInputSchema, req);
    const { prompt, scope } = await findPrompt(req);
    const p = principalOf(req);
    const version = await ctx.db.transaction(async (trx) => {
      const v = await addVersion(trx, prompt.id, input, p.kind === 'user' ? p.userId : null);
      await recordAudit(trx, { orgId: scope.orgId, actor: p, action: 'prompt.version_created', resourceType: 'prompt_version', resourceId: v.id, after: v });
      return v;
    });
    res.status(201).json({ success: true, data: version });
  });

  router.get('/api/v1/prompts/:id/versions/:version', jwt, async (req, res) => {
    const { version } = parseParams(versionParams, req);
    const { prompt } = await findPrompt(req);
    const v = await resolvePromptRef(ctx.db, [prompt.project_id], {
      kind: 'name',
      name: prompt.name,
      version: version === 'latest' ? 'latest' : Number(version),
    });
    if (!v) throw notFound('Prompt version', 'prompt_version_not_found');
    res.json({ success: true, data: v });
  });

  router.delete('/api/v1/prompts/:id', jwt, writer, async (req, res) => {
    const { prompt, scope } = await findPrompt(req);
    const p = principalOf(req);
    await ctx.db.transaction(async (trx) => {
      await deletePrompt(trx, scope.projectIds, prompt.id);
      await recordAudit(trx, { orgId: scope.orgId, actor: p, action: 'prompt.deleted', resourceType: 'prompt', resourceId: prompt.id, before: prompt });
    });
    res.status(204).end();
  });

  return router;
}
