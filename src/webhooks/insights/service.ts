import type { Db } from '../../db/knex';
import { notFound } from '../../http/errors';
import { cursorCodec, pageOf } from '../../http/pagination';
import type { Page } from '../../http/route';
import { attemptView } from '../deliveries/service';
import { deliveryStatuses, type DeliveryStatus } from '../policy';
import { findWebhookRow } from '../queries';
import * as q from './queries';
import type { ListAttemptsQuery, StatsWindow, WebhookAttemptView, WebhookStatsView } from './schemas';

/** A webhook's attempt log and its delivery statistics (docs/webhooks.md). */

const cursor = cursorCodec('ts', 'uuid', 'int');

async function requireWebhook(db: Db, orgId: string, id: string): Promise<void> {
  if (!(await findWebhookRow(db, orgId, id))) throw notFound('Webhook');
}

export async function listWebhookAttempts(
  db: Db,
  orgId: string,
  webhookId: string,
  query: ListAttemptsQuery,
): Promise<Page<WebhookAttemptView>> {
  await requireWebhook(db, orgId, webhookId);
  const { limit, cursor: raw, ...filter } = query;
  const after = raw ? (cursor.decode(raw) as [string, string, string]) : undefined;
  const rows = await q.selectWebhookAttempts(db, webhookId, { ...filter, after }, limit + 1);
  return pageOf(
    rows,
    limit,
    cursor,
    (r) => [r.cursor_at, r.delivery_id, r.number],
    (r) => ({
      ...attemptView(r),
      delivery_id: r.delivery_id,
      event_type: r.event_type,
      workflow_id: r.workflow_id,
    }),
  );
}

const WINDOWS: Record<StatsWindow, { unit: 'hour' | 'day'; buckets: number }> = {
  '24h': { unit: 'hour', buckets: 24 },
  '7d': { unit: 'day', buckets: 7 },
  '30d': { unit: 'day', buckets: 30 },
};
const UNIT_MS = { hour: 3_600_000, day: 86_400_000 };

/**
 * The window is whole buckets ending with the current one (24h = this hour and the 23 before), so
 * the totals are exactly the sum of the series and a bucket means the same on every call.
 */
function windowStart(window: StatsWindow, now: number): Date {
  const { unit, buckets } = WINDOWS[window];
  return new Date(Math.floor(now / UNIT_MS[unit]) * UNIT_MS[unit] - (buckets - 1) * UNIT_MS[unit]);
}

export async function webhookStats(
  db: Db,
  orgId: string,
  webhookId: string,
  window: StatsWindow,
  now = Date.now(),
): Promise<WebhookStatsView> {
  await requireWebhook(db, orgId, webhookId);
  const { unit, buckets } = WINDOWS[window];
  const since = windowStart(window, now);
  const [counts, totals] = await Promise.all([
    q.countDeliveries(db, webhookId, since, unit),
    q.attemptTotals(db, webhookId, since),
  ]);
  const byStatus = Object.fromEntries(deliveryStatuses.map((s) => [s, 0])) as Record<DeliveryStatus, number>;
  const series = Array.from({ length: buckets }, (_, i) => ({
    bucket: new Date(since.getTime() + i * UNIT_MS[unit]).toISOString(),
    delivered: 0,
    failed: 0,
    dead_lettered: 0,
  }));
  for (const c of counts) {
    if (c.status in byStatus) byStatus[c.status as DeliveryStatus] += c.count;
    const slot = series[Math.round((c.bucket.getTime() - since.getTime()) / UNIT_MS[unit])];
    const counted = c.status === 'delivered' || c.status === 'failed' || c.status === 'dead_lettered';
    if (slot && counted) slot[c.status as 'delivered' | 'failed' | 'dead_lettered'] += c.count;
  }
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  // Finished = an end the receiver decided: delivered, or dead-lettered after its retries ran out.
  const finished = byStatus.delivered + byStatus.dead_lettered;
  return {
    window,
    since: since.toISOString(),
    bucket: unit,
    deliveries: { total, ...byStatus },
    attempts: totals.attempts,
    success_rate: finished ? byStatus.delivered / finished : null,
    attempts_per_delivery: total ? totals.attempts / total : null,
    duration_ms: { p50: totals.p50, p95: totals.p95 },
    series,
  };
}
