import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, requireRole } from '../../auth/middleware';
import type { AppContext } from '../../context';
import { parseBody } from '../../http/validate';
import { createProject, deleteProject, listProjects, renameProject, requireProject } from '../../tenancy/projects';
import { idParam, nameSchema, ok, userOf } from './common';

export const createProjectBody = z.object({ name: nameSchema }).strict();
export const updateProjectBody = z.object({ name: nameSchema }).strict();

/** /api/v1/projects: projects of the organization in context; writes need admin or editor. */
export function projectsRouter(ctx: AppContext): Router {
  const r = Router();
  const base = '/api/v1/projects';
  const auth = requireJwt(ctx);
  const writer = requireRole('admin', 'editor');

  r.get(base, auth, async (req, res) => ok(res, await listProjects(ctx.db, userOf(req).orgId)));
  r.post(base, auth, writer, async (req, res) => {
    const body = parseBody(createProjectBody, req);
    ok(res, await createProject(ctx.db, userOf(req), body.name), 201);
  });
  r.get(`${base}/:id`, auth, async (req, res) => ok(res, await requireProject(ctx.db, userOf(req).orgId, idParam(req, 'id', 'Project'))));
  r.patch(`${base}/:id`, auth, writer, async (req, res) => {
    const id = idParam(req, 'id', 'Project');
    const body = parseBody(updateProjectBody, req);
    ok(res, await renameProject(ctx.db, userOf(req), id, body.name));
  });
  r.delete(`${base}/:id`, auth, writer, async (req, res) => {
    const id = idParam(req, 'id', 'Project');
    await deleteProject(ctx.db, userOf(req), id);
    ok(res, { id, deleted: true });
  });
  return r;
}
