import type { AppContext } from '../../context';
import { route } from '../../http/route';
import { deletedSchema } from '../../http/schemas';
import { createProjectBody, projectParams, projectSchema, updateProjectBody } from './schemas';
import { createProject, deleteProject, listProjects, renameProject, requireProject } from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Projects', auth: 'jwt', notFound: 'Project' } as const;

/** /api/v1/projects: projects of the organization in context; writes need admin or editor. */
export const projectRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/projects',
    summary: 'List the projects of the organization',
    response: projectSchema.array(),
    handler: ({ principal }) => listProjects(db, principal.orgId),
  }),
  route({
    ...common,
    method: 'post',
    path: '/api/v1/projects',
    summary: 'Create a project',
    roles: WRITERS,
    body: createProjectBody,
    status: 201,
    response: projectSchema,
    handler: ({ principal, body }) => createProject(db, principal, body.name),
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/projects/:id',
    summary: 'Read a project',
    params: projectParams,
    response: projectSchema,
    handler: ({ principal, params }) => requireProject(db, principal.orgId, params.id),
  }),
  route({
    ...common,
    method: 'patch',
    path: '/api/v1/projects/:id',
    summary: 'Rename a project',
    roles: WRITERS,
    params: projectParams,
    body: updateProjectBody,
    response: projectSchema,
    handler: ({ principal, params, body }) => renameProject(db, principal, params.id, body.name),
  }),
  route({
    ...common,
    method: 'delete',
    path: '/api/v1/projects/:id',
    summary: 'Delete a project with its keys and data',
    roles: WRITERS,
    params: projectParams,
    response: deletedSchema,
    handler: async ({ principal, params }) => {
      await deleteProject(db, principal, params.id);
      return { id: params.id, deleted: true as const };
    },
  }),
];
