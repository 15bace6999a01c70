import { ADMIN, adminCall, ALL, type Endpoint, limitedProject, newProject, WRITERS } from './matrix-rules';

/** Rows of the role matrix (matrix.test.ts) for API keys, provider keys, billing, audit logs and rate limits. */
export const keyRows: Endpoint[] = [
  // API keys
  {
    name: 'GET /api-keys',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/api-keys' }),
  },
  {
    name: 'POST /api-keys',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: (c) => ({ path: '/api/v1/api-keys', body: { project_id: c.t.projectId, name: 'k', scope: 'full' } }),
  },
  {
    name: 'GET /api-keys/:id',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/api-keys/${c.t.fullKeyId}` }),
  },
  {
    name: 'PATCH /api-keys/:id',
    method: 'PATCH',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => {
      const k = await adminCall(c, 'POST', '/api/v1/api-keys', { project_id: c.t.projectId, name: 'to revoke' });
      return { path: `/api/v1/api-keys/${k.id}`, body: { is_active: false } };
    },
  },
  {
    name: 'DELETE /api-keys/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => {
      const k = await adminCall(c, 'POST', '/api/v1/api-keys', { project_id: c.t.projectId, name: 'to delete' });
      return { path: `/api/v1/api-keys/${k.id}` };
    },
  },
  // Provider keys
  {
    name: 'GET /provider-keys',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/provider-keys' }),
  },
  {
    name: 'POST /provider-keys',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: async (c) => ({
      path: '/api/v1/provider-keys',
      body: { project_id: (await newProject(c)).id, provider: 'openai', api_key: 'sk-test-0123456789abcdef' },
    }),
  },
  {
    name: 'PUT /provider-keys',
    method: 'PUT',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: async (c) => ({
      path: '/api/v1/provider-keys',
      body: { project_id: (await newProject(c)).id, provider: 'ollama', base_url: 'http://127.0.0.1:11434' },
    }),
  },
  {
    name: 'GET /provider-keys/:id',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: async (c) => {
      const pk = await adminCall(c, 'PUT', '/api/v1/provider-keys', {
        project_id: c.t.projectId,
        provider: 'anthropic',
        api_key: 'sk-ant-test-0123456789',
      });
      return { path: `/api/v1/provider-keys/${pk.id}` };
    },
  },
  {
    name: 'DELETE /provider-keys/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => {
      const pk = await adminCall(c, 'POST', '/api/v1/provider-keys', {
        project_id: (await newProject(c)).id,
        provider: 'groq',
        api_key: 'gsk_test_0123456789',
      });
      return { path: `/api/v1/provider-keys/${pk.id}` };
    },
  },
  // Billing
  {
    name: 'GET /billing',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/billing' }),
  },
  // A no-op change (free → free) keeps the tenant's allowance unchanged for the rows below.
  {
    name: 'PATCH /billing',
    method: 'PATCH',
    auth: 'jwt',
    org: 'header',
    roles: ADMIN,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/billing', body: { plan: 'free' } }),
  },
  {
    name: 'PUT /billing',
    method: 'PUT',
    auth: 'jwt',
    org: 'header',
    roles: ADMIN,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/billing', body: { plan: 'free' } }),
  },
  // Audit logs
  {
    name: 'GET /audit-logs',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ADMIN,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/audit-logs' }),
  },
  // Rate limits (a fresh project per call, so every writer's PUT creates: 201)
  {
    name: 'GET /rate-limits',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/rate-limits' }),
  },
  {
    name: 'PUT /rate-limits',
    method: 'PUT',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    prepare: async (c) => ({
      path: '/api/v1/rate-limits',
      body: { project_id: (await newProject(c)).id, requests_per_window: 10, window_seconds: 60 },
    }),
  },
  {
    name: 'DELETE /rate-limits',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 204,
    prepare: async (c) => ({ path: `/api/v1/rate-limits?project_id=${(await limitedProject(c)).id}` }),
  },
  {
    name: 'GET /rate-limits/usage',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/rate-limits/usage?project_id=${(await limitedProject(c)).id}&user_id=u-1`,
    }),
  },
];
