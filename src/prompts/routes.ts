import type { AppContext } from '../context';
import { validationError } from '../http/errors';
import { route } from '../http/route';
import {
  createPromptSchema,
  labelsBody,
  projectQuery,
  promptParams,
  promptSchema,
  promptVersionParams,
  promptVersionSchema,
  promptWithVersionsSchema,
  resolveQuery,
  versionInputSchema,
  versionSelector,
} from './schemas';
import {
  addVersion,
  createPrompt,
  deletePrompt,
  listPrompts,
  promptVersion,
  promptWithVersions,
  resolveRef,
  setLabels,
} from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Prompts', auth: 'jwt', notFound: 'Prompt' } as const;

/** /api/v1/prompts (JWT; writes need admin or editor and are audited). */
export const promptRoutes = ({ db }: AppContext) => {
  return [
    route({
      ...common,
      method: 'get',
      path: '/api/v1/prompts',
      summary: 'List prompts',
      query: projectQuery,
      response: promptSchema.array(),
      scope: 'project',
      handler: async ({ scope }) => listPrompts(db, scope.projectIds),
    }),
    route({
      ...common,
      method: 'post',
      path: '/api/v1/prompts',
      summary: 'Create a prompt, optionally with its first version',
      roles: WRITERS,
      body: createPromptSchema,
      status: 201,
      response: promptWithVersionsSchema,
      errors: { 409: 'A prompt of this name exists in the project' },
      // 404 unless the project is in the caller's organization.
      scope: 'project',
      handler: async ({ principal, scope, body }) => createPrompt(db, principal, scope, body),
    }),
    // Before /:id, whose UUID check would answer "resolve" with a 404.
    route({
      ...common,
      method: 'get',
      path: '/api/v1/prompts/resolve',
      summary: 'Read one version by name@version, name@latest or version id',
      query: resolveQuery,
      response: promptVersionSchema,
      scope: 'project',
      handler: async ({ scope, query }) => resolveRef(db, scope.projectIds, query.ref),
    }),
    route({
      ...common,
      method: 'get',
      path: '/api/v1/prompts/:id',
      summary: 'Read a prompt with its versions, newest first',
      params: promptParams,
      query: projectQuery,
      response: promptWithVersionsSchema,
      scope: 'project',
      handler: async ({ scope, params }) => promptWithVersions(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'post',
      path: '/api/v1/prompts/:id/versions',
      summary: 'Add the next immutable version',
      roles: WRITERS,
      params: promptParams,
      query: projectQuery,
      body: versionInputSchema,
      status: 201,
      response: promptVersionSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) => addVersion(db, principal, scope, params.id, body),
    }),
    route({
      ...common,
      method: 'get',
      path: '/api/v1/prompts/:id/versions/:version',
      summary: 'Read one version (a number or latest)',
      params: promptVersionParams,
      query: projectQuery,
      response: promptVersionSchema,
      scope: 'project',
      handler: async ({ scope, params }) => {
        const selector = versionSelector.safeParse({ version: params.version });
        if (!selector.success) throw validationError(selector.error, 'params');
        return promptVersion(db, scope.projectIds, params.id, selector.data.version);
      },
    }),
    route({
      ...common,
      method: 'put',
      path: '/api/v1/prompts/:id/versions/:version/labels',
      summary: 'Set a version’s labels (e.g. production); each label moves off the version that held it',
      roles: WRITERS,
      params: promptVersionParams,
      query: projectQuery,
      body: labelsBody,
      response: promptVersionSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) => {
        const selector = versionSelector.safeParse({ version: params.version });
        if (!selector.success) throw validationError(selector.error, 'params');
        return setLabels(db, principal, scope, params.id, selector.data.version, body.labels);
      },
    }),
    route({
      ...common,
      method: 'delete',
      path: '/api/v1/prompts/:id',
      summary: 'Delete a prompt and its versions',
      roles: WRITERS,
      params: promptParams,
      query: projectQuery,
      envelope: 'raw',
      rawResponses: { 204: { description: 'Deleted' } },
      scope: 'project',
      handler: async ({ principal, scope, params, res }) => {
        await deletePrompt(db, principal, scope, params.id);
        res.status(204).end();
      },
    }),
  ];
};
