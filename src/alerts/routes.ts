import type { AnalyticsStore } from '../analytics/store';
import type { AppContext } from '../context';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import {
  alertEventSchema,
  alertParams,
  alertSchema,
  createAlertBody,
  evaluationSchema,
  eventsQuery,
  updateAlertBody,
} from './schemas';
import {
  alertDeps,
  createAlert,
  deleteAlert,
  evaluateNow,
  getAlert,
  listAlerts,
  listEvents,
  updateAlert,
} from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Alerts', auth: 'jwt', notFound: 'Alert rule' } as const;
const BASE = '/api/v1/alerts';

/**
 * /api/v1/alerts: reads (and the side-effect-free evaluate) for every role; writes for admin, editor (docs/alerts.md).
 */
export const alertRoutes = (ctx: AppContext, store: AnalyticsStore) => {
  const deps = alertDeps(ctx, store);
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List the alert rules of the organization',
      response: alertSchema.array(),
      handler: ({ principal }) => listAlerts(deps, principal.orgId),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Create an alert rule; its Temporal Schedule is created now, or by the reconcile if Temporal is down',
      roles: WRITERS,
      body: createAlertBody,
      status: 201,
      response: alertSchema,
      handler: ({ principal, body }) => createAlert(deps, principal, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Read an alert rule with its per-group states',
      params: alertParams,
      response: alertSchema,
      handler: ({ principal, params }) => getAlert(deps, principal.orgId, params.id),
    }),
    route({
      ...common,
      method: 'patch',
      path: `${BASE}/:id`,
      summary: 'Change an alert rule; is_active false pauses its schedule, true unpauses it',
      roles: WRITERS,
      params: alertParams,
      body: updateAlertBody,
      response: alertSchema,
      handler: ({ principal, params, body }) => updateAlert(deps, principal, params.id, body),
    }),
    route({
      ...common,
      method: 'delete',
      path: `${BASE}/:id`,
      summary: 'Delete an alert rule, its history and its schedule',
      roles: WRITERS,
      params: alertParams,
      response: deletedSchema,
      handler: async ({ principal, params }) => {
        await deleteAlert(deps, principal, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/events`,
      summary: 'History: every trigger, warning, resolve and no-data, with the values seen; newest first',
      params: alertParams,
      query: eventsQuery,
      envelope: 'page',
      response: alertEventSchema,
      handler: ({ principal, params, query }) => listEvents(deps, principal.orgId, params.id, query),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/evaluate`,
      summary:
        'Evaluate the rule now and answer the values per group, worst first; records nothing and notifies nobody',
      params: alertParams,
      response: evaluationSchema,
      handler: ({ principal, params }) => evaluateNow(deps, principal.orgId, params.id),
    }),
  ];
};
