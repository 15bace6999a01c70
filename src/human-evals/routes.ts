import type { AppContext } from '../context';
import { route } from '../http/route';
import { nextItem, release, submit } from './queue';
import {
  addItemsBody,
  agreementSchema,
  createHumanEvalBody,
  humanEvalParams,
  humanEvalSchema,
  projectQuery,
  queueItemSchema,
  queueQuery,
  slotBody,
  submitBody,
  updateHumanEvalBody,
} from './schemas';
import {
  addHumanEvalItems,
  agreement,
  createHumanEval,
  getHumanEval,
  listHumanEvals,
  updateHumanEval,
} from './service';

const WRITERS = ['admin', 'editor'] as const;
const BASE = '/api/v1/human-evals';
const QUEUE = '/api/v1/annotation/queue';

/**
 * /api/v1/human-evals (JWT; campaigns are written by admin and editor) and the reviewer's /api/v1/annotation/queue
 * (docs/human-evals.md).
 */
export const humanEvalRoutes = ({ db }: AppContext) => {
  const common = { tag: 'Human evals', auth: 'jwt', notFound: 'Human eval' } as const;
  const queue = { tag: 'Annotation queue', auth: 'jwt', notFound: 'Human eval' } as const;
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List review campaigns with their progress',
      query: projectQuery,
      response: humanEvalSchema.array(),
      scope: 'project',
      handler: async ({ scope }) => listHumanEvals(db, scope.projectIds),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Create a review campaign over targets, with the score configs reviewers fill',
      roles: WRITERS,
      body: createHumanEvalBody,
      status: 201,
      response: humanEvalSchema,
      scope: 'project',
      handler: async ({ principal, scope, body }) => createHumanEval(db, principal, scope, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'A campaign with its progress per reviewer',
      params: humanEvalParams,
      query: projectQuery,
      response: humanEvalSchema,
      scope: 'project',
      handler: async ({ scope, params }) => getHumanEval(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'patch',
      path: `${BASE}/:id`,
      summary: 'Rename, re-instruct, close or reopen a campaign',
      roles: WRITERS,
      params: humanEvalParams,
      query: projectQuery,
      body: updateHumanEvalBody,
      response: humanEvalSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) =>
        updateHumanEval(db, principal, scope.projectIds, params.id, body),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/items`,
      summary: 'Add targets to a campaign (ones it has are kept as they are); answers the campaign',
      roles: WRITERS,
      params: humanEvalParams,
      query: projectQuery,
      body: addItemsBody,
      response: humanEvalSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) =>
        addHumanEvalItems(db, principal, scope.projectIds, params.id, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/agreement`,
      summary:
        "Inter-annotator agreement per score config (Fleiss' kappa, Krippendorff's alpha) and judge-vs-human agreement",
      params: humanEvalParams,
      query: projectQuery,
      response: agreementSchema,
      scope: 'project',
      handler: async ({ scope, params }) => agreement(db, scope.projectIds, params.id),
    }),
    route({
      ...queue,
      method: 'get',
      path: QUEUE,
      summary: 'Your next item, reserved for the campaign’s lease (your live reservation if you hold one)',
      query: queueQuery,
      response: queueItemSchema,
      scope: 'organization',
      handler: async ({ principal, scope, query }) => nextItem(db, principal, scope, query.human_eval_id),
    }),
    route({
      ...queue,
      method: 'post',
      path: QUEUE,
      summary: 'Answer your reserved item (scores validated against the configs) and get the next',
      body: submitBody,
      response: queueItemSchema,
      scope: 'organization',
      handler: async ({ principal, scope, body }) => submit(db, principal, scope, body),
    }),
    route({
      ...queue,
      method: 'post',
      path: `${QUEUE}/skip`,
      summary: 'Skip your reserved item (not offered to you again) and get the next',
      body: slotBody,
      response: queueItemSchema,
      scope: 'organization',
      handler: async ({ principal, scope, body }) => release(db, principal, scope, body, true),
    }),
    route({
      ...queue,
      method: 'post',
      path: `${QUEUE}/release`,
      summary: 'Give your reserved item back and get the next',
      body: slotBody,
      response: queueItemSchema,
      scope: 'organization',
      handler: async ({ principal, scope, body }) => release(db, principal, scope, body, false),
    }),
  ];
};
