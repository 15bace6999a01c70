import type { AppContext } from '../context';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import { createEvaluatorBody, evaluatorParams, evaluatorQuery, evaluatorSchema, listEvaluatorsQuery, updateEvaluatorBody } from './schemas';
import { createEvaluator, deleteEvaluator, getEvaluator, listEvaluators, updateEvaluator } from './service';

const common = { tag: 'Evals', auth: 'read', notFound: 'Evaluator' } as const;
const BASE = '/api/v1/evaluators';

/** /api/v1/evaluators: JWT or API key; writes need a full key or admin/editor (docs/evals.md). */
export const evaluatorRoutes = ({ db, auth }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: BASE,
    summary: 'List evaluators',
    query: listEvaluatorsQuery,
    response: evaluatorSchema.array(),
    handler: async ({ principal, query }) => listEvaluators(db, (await auth.projectScope(principal, query.project_id)).projectIds, query.type),
  }),
  route({
    ...common,
    method: 'post',
    path: BASE,
    summary: 'Create an evaluator: llm_judge, regex, contains, exact_match, json_schema, levenshtein, latency or cost',
    write: true,
    body: createEvaluatorBody,
    status: 201,
    response: evaluatorSchema,
    errors: { 409: 'An evaluator of that name already exists in the project (evaluator_exists)' },
    handler: async ({ principal, body }) => createEvaluator(db, principal, await auth.projectScope(principal, (body as { project_id?: string }).project_id), body),
  }),
  route({
    ...common,
    method: 'get',
    path: `${BASE}/:id`,
    summary: 'Read an evaluator',
    params: evaluatorParams,
    query: evaluatorQuery,
    response: evaluatorSchema,
    handler: async ({ principal, params, query }) => getEvaluator(db, (await auth.projectScope(principal, query.project_id)).projectIds, params.id),
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
    handler: async ({ principal, params, query, body }) => updateEvaluator(db, principal, (await auth.projectScope(principal, query.project_id)).projectIds, params.id, body),
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
    handler: async ({ principal, params, query }) => deleteEvaluator(db, principal, (await auth.projectScope(principal, query.project_id)).projectIds, params.id),
  }),
];
