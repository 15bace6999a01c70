import type { AppContext } from '../../context';
import { idempotencyHeaders, idempotent } from '../../http/idempotency';
import { route } from '../../http/route';
import { deliveryDetailSchema, deliveryParams, redeliverySchema } from './schemas';
import { deliveryDeps, getDelivery, redeliver } from './service';

const common = { tag: 'Webhooks', auth: 'jwt', notFound: 'Delivery' } as const;
const PATH = '/api/v1/webhooks/:id/deliveries/:deliveryId';

/** One delivery record: read (admin, editor, viewer) and redeliver (admin, editor). */
export const deliveryRoutes = (ctx: AppContext) => {
  const deps = deliveryDeps(ctx);
  return [
    route({
      ...common,
      method: 'get',
      path: PATH,
      summary: 'A delivery record with its attempts (each redirect, the first 1 KB of the response headers and body)',
      params: deliveryParams,
      response: deliveryDetailSchema,
      handler: ({ principal, params }) => getDelivery(deps, principal.orgId, params.id, params.deliveryId),
    }),
    route({
      ...common,
      method: 'post',
      path: `${PATH}/redeliver`,
      summary:
        'Run the delivery again (same body, delivery id and attempt rules) as a new workflow; ' +
        'any status, paused webhooks included',
      roles: ['admin', 'editor'],
      params: deliveryParams,
      headers: idempotencyHeaders,
      status: 202,
      response: redeliverySchema,
      errors: {
        409:
          'A workflow of this delivery is running (delivery_in_progress), ' +
          'or a call with this Idempotency-Key is (idempotency_key_in_progress)',
        422: 'The Idempotency-Key was used for a different request (idempotency_key_reused)',
        503: 'Temporal is unreachable (temporal_unavailable)',
      },
      handler: ({ principal, params, headers, req }) =>
        idempotent({ db: deps.db, orgId: principal.orgId, key: headers['Idempotency-Key'], req, status: 202 }, () =>
          redeliver(deps, principal, params.id, params.deliveryId),
        ),
    }),
  ];
};
