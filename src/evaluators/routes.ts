import type { AppContext } from '../context';
import { withLazyAjv } from './json-schema';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import { createProxyPricer } from '../providers/cost';
import { previewEvaluator, type PreviewDeps } from './preview';
import {
  createEvaluatorBody,
  evaluatorParams,
  evaluatorPreviewSchema,
  evaluatorQuery,
  evaluatorSchema,
  listEvaluatorsQuery,
  previewEvaluatorBody,
  updateEvaluatorBody,
} from './schemas';
import { createEvaluator, deleteEvaluator, getEvaluator, listEvaluators, updateEvaluator } from './service';

const common = { tag: 'Evals', auth: 'read', notFound: 'Evaluator' } as const;
const BASE = '/api/v1/evaluators';

/** /api/v1/evaluators: JWT or API key; writes need a full key or admin/editor (docs/evals.md). */
export const evaluatorRoutes = ({ db, keyring, config }: AppContext) => {
  const preview: PreviewDeps = withLazyAjv({ db, keyring, config, pricer: createProxyPricer() });
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List evaluators',
      query: listEvaluatorsQuery,
      response: evaluatorSchema.array(),
      scope: 'project',
      handler: async ({ scope, query }) => listEvaluators(db, scope.projectIds, query.type),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary:
        'Create an evaluator: llm_judge, regex, contains, exact_match, json_schema, levenshtein, latency or cost',
      write: true,
      body: createEvaluatorBody,
      status: 201,
      response: evaluatorSchema,
      errors: { 409: 'An evaluator of that name already exists in the project (evaluator_exists)' },
      scope: 'project',
      handler: async ({ principal, scope, body }) => createEvaluator(db, principal, scope, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Read an evaluator',
      params: evaluatorParams,
      query: evaluatorQuery,
      response: evaluatorSchema,
      scope: 'project',
      handler: async ({ scope, params }) => getEvaluator(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'patch',
      path: `${BASE}/:id`,
      summary: 'Change an evaluator (its type stays; config is replaced whole)',
      write: true,
      params: evaluatorParams,
      query: evaluatorQuery,
      body: updateEvaluatorBody,
      errors: { 409: 'Another evaluator of the project has that name (evaluator_exists)' },
      response: evaluatorSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) =>
        updateEvaluator(db, principal, scope.projectIds, params.id, body),
    }),
    route({
      ...common,
      method: 'delete',
      path: `${BASE}/:id`,
      summary: 'Delete an evaluator (its scores stay)',
      write: true,
      params: evaluatorParams,
      query: evaluatorQuery,
      response: deletedSchema,
      scope: 'project',
      handler: async ({ principal, scope, params }) => deleteEvaluator(db, principal, scope.projectIds, params.id),
    }),
    route({
      ...common,
      notFound: 'Request',
      method: 'post',
      path: `${BASE}/preview`,
      summary:
        'Run an evaluator definition once on a request, trace or span, as an eval run would; writes nothing ' +
        '(no score, no audit entry; an llm_judge preview’s model call is logged like any judge call)',
      write: true,
      body: previewEvaluatorBody,
      response: evaluatorPreviewSchema,
      errors: {
        422: 'The evaluation cannot succeed on this target, e.g. nothing to compare with (evaluation_failed)',
        502: 'The judge’s provider answered 429 or 5xx (judge_unavailable)',
      },
      scope: 'project',
      handler: async ({ scope, body }) => previewEvaluator(preview, scope, body),
    }),
  ];
};
