import type { AppContext } from '../context';
import type { ExperimentDeps } from '../experiments/service';
import { route } from '../http/route';
import { createProxyPricer } from '../providers/cost';
import { createPromptExperimentBody, gridSchema, projectQuery, promptExperimentParams } from './schemas';
import { cancelPromptExperiment, createPromptExperiment, getPromptExperiment, listPromptExperiments } from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Prompt experiments', auth: 'jwt', notFound: 'Prompt experiment' } as const;
const BASE = '/api/v1/prompt-experiments';

/** /api/v1/prompt-experiments: JWT; every role reads, admin and editor start and cancel. */
export const promptExperimentRoutes = (ctx: AppContext) => {
  const { db, auth } = ctx;
  const deps: ExperimentDeps = { db, keyring: ctx.keyring, config: ctx.config, pricer: createProxyPricer(), temporal: ctx.temporal, taskQueue: ctx.config.TEMPORAL_TASK_QUEUE };
  const scope = async (principal: Parameters<typeof auth.projectScope>[0], projectId: unknown) => (await auth.projectScope(principal, projectId)).projectIds;
  return [
    route({ ...common, method: 'get', path: BASE, summary: 'List prompt experiments with their grids', query: projectQuery, response: gridSchema.array(), handler: async ({ principal, query }) => listPromptExperiments(db, await scope(principal, query.project_id)) }),
    route({
      ...common, method: 'post', path: BASE, summary: 'Run up to 8 prompt variants over a dataset version or a production sample (one experiment each)', roles: WRITERS,
      body: createPromptExperimentBody, status: 201, response: gridSchema, handler: async ({ principal, body }) => createPromptExperiment(deps, principal, await auth.projectScope(principal, body.project_id), body),
    }),
    route({ ...common, method: 'get', path: `${BASE}/:id`, summary: 'The grid: items × variants with outputs and scores, per-variant aggregates and winners', params: promptExperimentParams, query: projectQuery, response: gridSchema, handler: async ({ principal, params, query }) => getPromptExperiment(db, await scope(principal, query.project_id), params.id) }),
    route({ ...common, method: 'post', path: `${BASE}/:id/cancel`, summary: 'Cancel every variant’s experiment', roles: WRITERS, params: promptExperimentParams, query: projectQuery, response: gridSchema, handler: async ({ principal, params, query }) => cancelPromptExperiment(deps, principal, await scope(principal, query.project_id), params.id) }),
  ];
};
