import { z } from 'zod';
import type { AppContext } from '../context';
import { route } from '../http/route';
import { createProxyPricer } from '../providers/cost';
import { compare } from './compare';
import {
  compareQuery,
  createExperimentBody,
  experimentItemSchema,
  experimentParams,
  experimentQuery,
  experimentSchema,
  itemsQuery,
  listExperimentsQuery,
  outputsBody,
} from './schemas';
import { getExperiment, listExperiments, listItems, type ExperimentDeps } from './service';
import { cancelExperiment, createExperiment, postOutputs } from './write';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Experiments', auth: 'jwt', notFound: 'Experiment' } as const;
const BASE = '/api/v1/experiments';

const compareSchema = z
  .object({
    baseline: z.uuid(),
    experiments: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        aggregate: z
          .record(z.string(), z.unknown())
          .describe(
            '`{items, scores, cost_usd, latency_p50_ms, latency_p95_ms, errors}`; `scores`: per score name ' +
              '`{name, mean, ci_low, ci_high, n, interval}`, the mean over items (an item: the mean of its ' +
              'repetitions) with its 95 % interval. `interval` `student_t`: mean ± t(0.975, n−1)·s/√n, clamped ' +
              "to the range of the scores' config (numeric min/max, categorical values), ci_low/ci_high null " +
              "under 2 items; `wilson`: Wilson's score interval of a boolean score's rate, within [0, 1], " +
              'from 1 item on.',
          ),
        delta: z
          .record(z.string(), z.unknown())
          .nullable()
          .describe('Against the baseline (null for it): `{scores: [{name, delta}], cost_usd, latency_p50_ms, …}`.'),
      }),
    ),
    items: z.array(
      z.object({
        item_id: z.string(),
        runs: z.record(
          z.string(),
          z.object({ outputs: z.array(z.unknown()), scores: z.record(z.string(), z.number()) }),
        ),
      }),
    ),
    regressions: z.array(
      z.object({
        item_id: z.string(),
        experiment_id: z.uuid(),
        name: z.string(),
        baseline: z.number(),
        value: z.number(),
        delta: z.number(),
      }),
    ),
  })
  .meta({ id: 'ExperimentComparison' });

/**
 * /api/v1/experiments: JWT; every role reads, admin and editor start, post outputs and cancel (docs/experiments.md).
 */
export const experimentRoutes = (ctx: AppContext) => {
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
      summary: 'List experiments, newest first',
      query: listExperimentsQuery,
      response: experimentSchema.array(),
      scope: 'project',
      handler: async ({ scope, query }) => listExperiments(db, scope.projectIds, query),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary:
        'Start an experiment: a prompt subject runs as a Temporal workflow; an external one waits for its outputs',
      roles: WRITERS,
      body: createExperimentBody,
      status: 201,
      response: experimentSchema,
      scope: 'project',
      handler: async ({ principal, scope, body }) => createExperiment(deps, principal, scope, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/compare`,
      summary: 'Compare experiments per item, with aggregate deltas against the first and regressed items',
      query: compareQuery,
      response: compareSchema,
      scope: 'project',
      handler: async ({ scope, query }) =>
        compare(db, scope.projectIds, query.ids.split(','), query.regression_threshold),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Progress, mean scores, cost and latency of an experiment',
      params: experimentParams,
      query: experimentQuery,
      response: experimentSchema,
      scope: 'project',
      handler: async ({ scope, params }) => getExperiment(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/items`,
      summary: 'Item runs with outputs and scores (cursor)',
      params: experimentParams,
      query: itemsQuery,
      envelope: 'page',
      response: experimentItemSchema,
      scope: 'project',
      handler: async ({ scope, params, query }) => listItems(db, scope.projectIds, params.id, query),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/outputs`,
      summary: 'Post an external application’s outputs (scored on arrival)',
      roles: WRITERS,
      params: experimentParams,
      query: experimentQuery,
      body: outputsBody,
      response: z.object({
        results: z.array(z.object({ item_id: z.string(), repetition: z.number().int(), status: z.string() })),
        experiment: experimentSchema,
      }),
      scope: 'project',
      handler: async ({ scope, params, body }) => postOutputs(deps, scope.projectIds, params.id, body),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/cancel`,
      summary: 'Cancel an experiment',
      roles: WRITERS,
      params: experimentParams,
      query: experimentQuery,
      response: experimentSchema,
      scope: 'project',
      handler: async ({ principal, scope, params }) => cancelExperiment(deps, principal, scope.projectIds, params.id),
    }),
  ];
};
