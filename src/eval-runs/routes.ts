import type { AppContext } from '../context';
import { route } from '../http/route';
import { createRunBody, listRunsQuery, resultSchema, resultsQuery, runParams, runQuery, runSchema } from './schemas';
import { cancelRun, createRun, getRun, listRuns, results, type RunDeps } from './service';

const common = { tag: 'Evals', auth: 'read', notFound: 'Eval run' } as const;
const BASE = '/api/v1/eval-runs';

/** /api/v1/eval-runs: JWT or API key; starting and cancelling need a full key or admin/editor (docs/evals.md). */
export const evalRunRoutes = (ctx: AppContext) => {
  const { db } = ctx;
  const deps: RunDeps = { db, temporal: ctx.temporal, taskQueue: ctx.config.TEMPORAL_TASK_QUEUE };
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List eval runs, newest first',
      query: listRunsQuery,
      response: runSchema.array(),
      scope: 'project',
      handler: async ({ scope, query }) => listRuns(db, scope.projectIds, query.limit),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Start an eval run: a Temporal workflow scoring the targets with the evaluators',
      write: true,
      body: createRunBody,
      status: 201,
      response: runSchema,
      scope: 'project',
      handler: async ({ principal, scope, body }) => createRun(deps, principal, scope, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Progress, counts, average scores and judge cost of a run',
      params: runParams,
      query: runQuery,
      response: runSchema,
      scope: 'project',
      handler: async ({ scope, params }) => getRun(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/results`,
      summary: 'Per target and evaluator: status, value, error (cursor)',
      params: runParams,
      query: resultsQuery,
      envelope: 'page',
      response: resultSchema,
      scope: 'project',
      handler: async ({ scope, params, query }) => results(db, scope.projectIds, params.id, query),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/cancel`,
      summary: 'Cancel a run (its workflow is cancelled; finished items keep their scores)',
      write: true,
      errors: {
        409: "online_run: an online evaluator's rolling run (turn the evaluator's online setting off instead)",
      },
      params: runParams,
      query: runQuery,
      response: runSchema,
      scope: 'project',
      handler: async ({ principal, scope, params }) => cancelRun(deps, principal, scope.projectIds, params.id),
    }),
  ];
};
