import type { AppContext } from '../../context';
import { idempotencyHeaders, idempotent } from '../../http/idempotency';
import { route } from '../../http/route';
import { webhookParams } from '../schemas';
import { listRecoveriesQuery, recoverBody, recoveryParams, recoverySchema } from './schemas';
import { cancelRecovery, createRecovery, getRecovery, listRecoveries, recoveryDeps } from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Webhooks', auth: 'jwt' } as const;
const BASE = '/api/v1/webhooks/:id';

/** Recoveries of a webhook: start and cancel (admin, editor), read (every role). */
export const recoveryRoutes = (ctx: AppContext) => {
  const deps = recoveryDeps(ctx);
  return [
    route({
      ...common,
      notFound: 'Webhook',
      method: 'post',
      path: `${BASE}/recover`,
      summary: 'Send once more every failed or dead-lettered delivery created in a time window (one Temporal workflow)',
      roles: WRITERS,
      params: webhookParams,
      headers: idempotencyHeaders,
      body: recoverBody,
      status: 202,
      response: recoverySchema,
      errors: {
        409:
          'A recovery of this webhook is running (recovery_running), ' +
          'or a call with this Idempotency-Key is (idempotency_key_in_progress)',
        422: 'The Idempotency-Key was used for a different request (idempotency_key_reused)',
        503: 'Temporal is unreachable (temporal_unavailable)',
      },
      handler: ({ principal, params, body, headers, req }) =>
        idempotent({ db: deps.db, orgId: principal.orgId, key: headers['Idempotency-Key'], req, status: 202 }, () =>
          createRecovery(deps, principal, params.id, body),
        ),
    }),
    route({
      ...common,
      notFound: 'Webhook',
      method: 'get',
      path: `${BASE}/recoveries`,
      summary: 'The recoveries of a webhook, newest first',
      params: webhookParams,
      query: listRecoveriesQuery,
      response: recoverySchema.array(),
      handler: ({ principal, params, query }) => listRecoveries(deps, principal.orgId, params.id, query.limit),
    }),
    route({
      ...common,
      notFound: 'Recovery',
      method: 'get',
      path: `${BASE}/recoveries/:rid`,
      summary: 'A recovery’s progress (matched, redelivered, delivered, failed, skipped) and status',
      params: recoveryParams,
      response: recoverySchema,
      handler: ({ principal, params }) => getRecovery(deps, principal.orgId, params.id, params.rid),
    }),
    route({
      ...common,
      notFound: 'Recovery',
      method: 'post',
      path: `${BASE}/recoveries/:rid/cancel`,
      summary: 'Cancel a running recovery (the sends in flight finish); a finished one is answered as it is',
      roles: WRITERS,
      params: recoveryParams,
      response: recoverySchema,
      handler: ({ principal, params }) => cancelRecovery(deps, principal, params.id, params.rid),
    }),
  ];
};
