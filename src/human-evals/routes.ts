import type { AppContext } from '../context';
import { route } from '../http/route';
import { nextItem, release, submit } from '../annotation/service';
import {
  addItemsBody, agreementSchema, createHumanEvalBody, humanEvalParams, humanEvalSchema, projectQuery, queueItemSchema,
  queueQuery, slotBody, submitBody, updateHumanEvalBody,
} from './schemas';
import {
  addHumanEvalItems, agreement, createHumanEval, getHumanEval, listHumanEvals, updateHumanEval,
} from './service';

const WRITERS = ['admin', 'editor'] as const;
const BASE = '/api/v1/human-evals';
const QUEUE = '/api/v1/annotation/queue';

/** /api/v1/human-evals (JWT; campaigns are written by admin and editor) and the reviewer's /api/v1/annotation/queue (docs/human-evals.md). */
export const humanEvalRoutes = ({ db, auth }: AppContext) => {
  const common = { tag: 'Human evals', auth: 'jwt', notFound: 'Human eval' } as const;
  const queue = { tag: 'Annotation queue', auth: 'jwt', notFound: 'Human eval' } as const;
  const scope = async (principal: Parameters<typeof auth.projectScope>[0], projectId?: unknown) => auth.projectScope(principal, projectId);
  return [
    route({ ...common, method: 'get', path: BASE, summary: 'List review campaigns with their progress', query: projectQuery, response: humanEvalSchema.array(), handler: async ({ principal, query }) => listHumanEvals(db, (await scope(principal, query.project_id)).projectIds) }),
    route({
      ...common, method: 'post', path: BASE, summary: 'Create a review campaign over targets, with the score configs reviewers fill', roles: WRITERS, body: createHumanEvalBody, status: 201, response: humanEvalSchema,
      handler: async ({ principal, body }) => createHumanEval(db, principal, await scope(principal, body.project_id), body),
    }),
    route({ ...common, method: 'get', path: `${BASE}/:id`, summary: 'A campaign with its progress per reviewer', params: humanEvalParams, query: projectQuery, response: humanEvalSchema, handler: async ({ principal, params, query }) => getHumanEval(db, (await scope(principal, query.project_id)).projectIds, params.id) }),
    route({
      ...common, method: 'patch', path: `${BASE}/:id`, summary: 'Rename, re-instruct, close or reopen a campaign', roles: WRITERS, params: humanEvalParams, query: projectQuery, body: updateHumanEvalBody, response: humanEvalSchema,
      handler: async ({ principal, params, query, body }) => updateHumanEval(db, principal, (await scope(principal, query.project_id)).projectIds, params.id, body),
    }),
    route({
      ...common, method: 'post', path: `${BASE}/:id/items`,
      summary: 'Add targets to a campaign (ones it has are kept as they are); answers the campaign',
      roles: WRITERS, params: humanEvalParams, query: projectQuery, body: addItemsBody, response: humanEvalSchema,
      handler: async ({ principal, params, query, body }) =>
        addHumanEvalItems(db, principal, (await scope(principal, query.project_id)).projectIds, params.id, body),
    }),
    route({
      ...common, method: 'get', path: `${BASE}/:id/agreement`, summary: "Inter-annotator agreement per score config (Fleiss' kappa, Krippendorff's alpha) and judge-vs-human agreement", params: humanEvalParams, query: projectQuery, response: agreementSchema,
      handler: async ({ principal, params, query }) => agreement(db, (await scope(principal, query.project_id)).projectIds, params.id),
    }),
    route({ ...queue, method: 'get', path: QUEUE, summary: 'Your next item, reserved for the campaign’s lease (your live reservation if you hold one)', query: queueQuery, response: queueItemSchema, handler: async ({ principal, query }) => nextItem(db, principal, await scope(principal), query.human_eval_id) }),
    route({ ...queue, method: 'post', path: QUEUE, summary: 'Answer your reserved item (scores validated against the configs) and get the next', body: submitBody, response: queueItemSchema, handler: async ({ principal, body }) => submit(db, principal, await scope(principal), body) }),
    route({ ...queue, method: 'post', path: `${QUEUE}/skip`, summary: 'Skip your reserved item (not offered to you again) and get the next', body: slotBody, response: queueItemSchema, handler: async ({ principal, body }) => release(db, principal, await scope(principal), body, true) }),
    route({ ...queue, method: 'post', path: `${QUEUE}/release`, summary: 'Give your reserved item back and get the next', body: slotBody, response: queueItemSchema, handler: async ({ principal, body }) => release(db, principal, await scope(principal), body, false) }),
  ];
};
