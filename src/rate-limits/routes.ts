import type { AppContext } from '../context';
import { route, upserted } from '../http/route';
import { projectQuery, putRateLimitBody, rateLimitUsage as usageSchema, rateLimitView, usageQuery } from './schemas';
import { deleteRateLimit, listRateLimits, putRateLimit, rateLimitUsage } from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Rate limits', auth: 'jwt', notFound: 'Rate limit' } as const;
const example = {
  project_id: '3f2b6c1e-8a4d-4c1b-9f0e-2d7a5b8c9e10',
  requests_per_window: 100,
  tokens_per_window: null,
  window_seconds: 60,
};

/** /api/v1/rate-limits: per-end-user caps of a project; writes need admin or editor. */
export const rateLimitRoutes = ({ db, changes }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/rate-limits',
    summary: 'List the rate limits of the projects in scope',
    query: projectQuery,
    response: rateLimitView.array(),
    scope: 'project',
    handler: ({ scope }) => listRateLimits(db, scope),
  }),
  route({
    ...common,
    method: 'put',
    path: '/api/v1/rate-limits',
    summary: "Set a project's rate limit (201 when new, 200 when replaced)",
    roles: WRITERS,
    body: putRateLimitBody,
    status: 201,
    otherStatuses: { 200: 'The existing rate limit was replaced' },
    response: rateLimitView,
    scope: 'project',
    handler: async ({ principal, scope, body }) => upserted(await putRateLimit(db, changes, principal, scope, body)),
  }),
  route({
    ...common,
    method: 'delete',
    path: '/api/v1/rate-limits',
    summary: "Remove a project's rate limit (no cap)",
    roles: WRITERS,
    query: projectQuery,
    envelope: 'raw',
    rawResponses: { 204: { description: 'Removed' } },
    scope: 'project',
    handler: async ({ principal, scope, res }) => {
      await deleteRateLimit(db, changes, principal, scope);
      res.status(204).end();
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/rate-limits/usage',
    summary: "An end user's counters in the current window",
    query: usageQuery,
    response: usageSchema,
    example: {
      ...example,
      user_id: 'end-user-42',
      window_start: '2026-01-31T12:00:00.000Z',
      requests: 3,
      tokens: 1200,
    },
    scope: 'project',
    handler: ({ scope, query }) => rateLimitUsage(db, scope, query.user_id),
  }),
];
