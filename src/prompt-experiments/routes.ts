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
  const { db } = ctx;
  const deps: ExperimentDeps = {
    db,
    keyring: ctx.keyring,
    config: ctx.config,
    pricer: createProxyPricer(),
    temporal: ctx.temporal,
    taskQueue: ctx.config.TEMPORAL_TASK_QUEUE,
  };
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List prompt experiments with their grids',
      query: projectQuery,
      response: gridSchema.array(),
      scope: 'project',
      handler: async ({ scope }) => listPromptExperiments(db, scope.projectIds),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Run up to 8 prompt variants over a dataset version or a production sample (one experiment each)',
      roles: WRITERS,
      body: createPromptExperimentBody,
      status: 201,
      response: gridSchema,
      scope: 'project',
      handler: async ({ principal, scope, body }) => createPromptExperiment(deps, principal, scope, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'The grid: items × variants with outputs and scores, per-variant aggregates and winners',
      params: promptExperimentParams,
      query: projectQuery,
      response: gridSchema,
      scope: 'project',
      handler: async ({ scope, params }) => getPromptExperiment(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/cancel`,
      summary: 'Cancel every variant’s experiment',
      roles: WRITERS,
      params: promptExperimentParams,
      query: projectQuery,
      response: gridSchema,
      scope: 'project',
      handler: async ({ principal, scope, params }) =>
        cancelPromptExperiment(deps, principal, scope.projectIds, params.id),
    }),
  ];
};
