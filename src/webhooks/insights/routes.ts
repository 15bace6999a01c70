import type { AppContext } from '../../context';
import { route } from '../../http/route';
import { webhookParams } from '../schemas';
import { listAttemptsQuery, statsQuery, webhookAttemptSchema, webhookStatsSchema } from './schemas';
import { listWebhookAttempts, webhookStats } from './service';

const common = { tag: 'Webhooks', auth: 'jwt', notFound: 'Webhook' } as const;
const BASE = '/api/v1/webhooks/:id';

/** A webhook's attempt log and statistics: reads, so admin, editor and viewer (like a delivery's detail). */
export const insightRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: `${BASE}/attempts`,
    summary: 'Every attempt of the webhook’s deliveries, newest first (cursor)',
    params: webhookParams,
    query: listAttemptsQuery,
    envelope: 'page',
    response: webhookAttemptSchema,
    handler: ({ principal, params, query }) => listWebhookAttempts(db, principal.orgId, params.id, query),
  }),
  route({
    ...common,
    method: 'get',
    path: `${BASE}/stats`,
    summary: 'Delivery counts, success rate, attempts and durations over 24h, 7d or 30d, hourly or daily',
    params: webhookParams,
    query: statsQuery,
    response: webhookStatsSchema,
    handler: ({ principal, params, query }) => webhookStats(db, principal.orgId, params.id, query.window),
  }),
];
