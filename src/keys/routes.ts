import { asUser, type Principal } from '../auth/principal';
import type { AppContext } from '../context';
import { uuidParams } from '../http/ids';
import { route, upserted } from '../http/route';
import { deletedSchema } from '../http/schemas';
import {
  apiKeySchema,
  createApiKeyBody,
  createdApiKeySchema,
  keyInfoSchema,
  projectQuery,
  providerKeySchema,
  updateApiKeyBody,
  upsertProviderKeyBody,
} from './schemas';
import * as svc from './service';

const WRITERS = ['admin', 'editor'] as const;
const idParams = uuidParams('id');
const apiKeys = { tag: 'API keys', auth: 'jwt', notFound: 'API key' } as const;
const providerKeys = { tag: 'Provider keys', auth: 'jwt', notFound: 'Provider key' } as const;

/** DELETE of one key by id, for writers; answers `{ id, deleted: true }`. */
const deleteById = (
  common: typeof apiKeys | typeof providerKeys,
  path: string,
  summary: string,
  remove: (p: Principal, id: string) => Promise<void>,
) =>
  route({
    ...common,
    method: 'delete',
    path,
    summary,
    roles: WRITERS,
    params: idParams,
    response: deletedSchema,
    handler: async ({ principal, params }) => {
      await remove(principal, params.id);
      return { id: params.id, deleted: true as const };
    },
  });

/** /api/v1/api-keys: per-project service keys; writes need admin or editor. */
const apiKeyRoutes = ({ db, changes }: AppContext) => [
  route({
    ...apiKeys,
    method: 'get',
    path: '/api/v1/api-keys',
    summary: 'List the API keys of the projects in scope (never the keys themselves)',
    query: projectQuery,
    response: apiKeySchema.array(),
    scope: 'project',
    handler: async ({ scope }) => svc.listApiKeys(db, scope),
  }),
  route({
    ...apiKeys,
    method: 'post',
    path: '/api/v1/api-keys',
    summary: 'Create an API key; the full key is in this response only',
    roles: WRITERS,
    body: createApiKeyBody,
    status: 201,
    response: createdApiKeySchema,
    handler: ({ principal, body }) =>
      svc.createApiKey(db, asUser(principal), { projectId: body.project_id, name: body.name, scope: body.scope }),
  }),
  route({
    ...apiKeys,
    method: 'get',
    path: '/api/v1/api-keys/:id',
    summary: 'Read an API key',
    params: idParams,
    response: apiKeySchema,
    handler: ({ principal, params }) => svc.getApiKey(db, principal.orgId, params.id),
  }),
  route({
    ...apiKeys,
    method: 'patch',
    path: '/api/v1/api-keys/:id',
    summary: 'Rename, revoke (is_active=false) or restore an API key',
    roles: WRITERS,
    params: idParams,
    body: updateApiKeyBody,
    response: apiKeySchema,
    handler: ({ principal, params, body }) => svc.updateApiKey(db, changes, principal, params.id, body),
  }),
  deleteById(apiKeys, '/api/v1/api-keys/:id', 'Delete an API key', (p, id) => svc.deleteApiKey(db, changes, p, id)),
];

/** /api/v1/provider-keys: upstream credentials per project and provider, encrypted at rest. */
const providerKeyRoutes = ({ db, keyring, changes }: AppContext) => {
  // POST and PUT both create or replace the single entry of (project, provider).
  const upsert = (method: 'post' | 'put') =>
    route({
      ...providerKeys,
      method,
      path: '/api/v1/provider-keys',
      summary: "Set a project's key for a provider (201 when new, 200 when replaced)",
      roles: WRITERS,
      body: upsertProviderKeyBody,
      status: 201,
      otherStatuses: { 200: 'The existing entry was replaced' },
      response: providerKeySchema,
      handler: async ({ principal, body }) =>
        upserted(await svc.upsertProviderKey(db, changes, keyring, asUser(principal), body)),
    });
  return [
    route({
      ...providerKeys,
      method: 'get',
      path: '/api/v1/provider-keys',
      summary: 'List the provider keys of the projects in scope (masked)',
      query: projectQuery,
      response: providerKeySchema.array(),
      scope: 'project',
      handler: async ({ scope }) => svc.listProviderKeys(db, scope),
    }),
    upsert('post'),
    upsert('put'),
    route({
      ...providerKeys,
      method: 'get',
      path: '/api/v1/provider-keys/:id',
      summary: 'Read a provider key (masked)',
      params: idParams,
      response: providerKeySchema,
      handler: ({ principal, params }) => svc.getProviderKeyView(db, principal.orgId, params.id),
    }),
    deleteById(providerKeys, '/api/v1/provider-keys/:id', 'Delete a provider key', (p, id) =>
      svc.deleteProviderKey(db, changes, p, id),
    ),
  ];
};

/** GET /api/v1/me/key-info: what the presented API key is (full or public). */
const keyInfoRoutes = ({ db }: AppContext) => [
  route({
    method: 'get',
    path: '/api/v1/me/key-info',
    tag: 'Key introspection',
    summary: 'The calling API key, its project and organization',
    auth: 'api_key',
    response: keyInfoSchema,
    handler: ({ principal }) => {
      if (principal.kind !== 'api_key') throw new Error('unreachable: api_key auth sets a key principal');
      return svc.keyInfo(db, principal.keyId);
    },
  }),
];

export const keyRoutes = (ctx: AppContext) => [...apiKeyRoutes(ctx), ...providerKeyRoutes(ctx), ...keyInfoRoutes(ctx)];
