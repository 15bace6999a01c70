import type { AppContext } from '../context';
import { route, upserted } from '../http/route';
import { deletedSchema } from '../http/schemas';
import { createScoreBody, listScoresQuery, scoreParams, scoreQuery, scoreSchema } from './schemas';
import { deleteScore, getScore, listScores, writeScore } from './service';

const common = { tag: 'Scores', auth: 'read', notFound: 'Score' } as const;
const BASE = '/api/v1/scores';

/** /api/v1/scores: JWT or API key; full keys and admin/editor write, public keys and viewers read (docs/scores.md). */
export const scoreRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: BASE,
    summary: 'List scores, newest first',
    query: listScoresQuery,
    envelope: 'page',
    response: scoreSchema,
    scope: 'project',
    handler: async ({ scope, query }) => listScores(db, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'post',
    path: BASE,
    summary: 'Write a score on a request, trace, span or session (201; 200 when the same id was written before)',
    write: true,
    body: createScoreBody,
    status: 201,
    response: scoreSchema,
    scope: 'project',
    handler: async ({ principal, scope, body }) => upserted(await writeScore(db, principal, scope, body)),
  }),
  route({
    ...common,
    method: 'get',
    path: `${BASE}/:id`,
    summary: 'Read a score',
    params: scoreParams,
    query: scoreQuery,
    response: scoreSchema,
    scope: 'project',
    handler: async ({ scope, params }) => getScore(db, scope.projectIds, params.id),
  }),
  route({
    ...common,
    method: 'delete',
    path: `${BASE}/:id`,
    summary: 'Delete a score',
    write: true,
    params: scoreParams,
    query: scoreQuery,
    response: deletedSchema,
    scope: 'project',
    handler: async ({ scope, params }) => deleteScore(db, scope.projectIds, params.id),
  }),
];
