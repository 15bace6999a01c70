import type { Knex } from 'knex';
import { isoSql } from '../../http/pagination';
import type { AttemptRow } from '../attempts';
import type { ListAttemptsQuery } from './schemas';

/** SQL of a webhook's attempt log and statistics; the webhook was checked against the organization. */

export interface WebhookAttemptRow extends AttemptRow {
  delivery_id: string;
  event_type: string;
  workflow_id: string | null;
  /** started_at to the microsecond: the cursor's first part (a Date keeps milliseconds only). */
  cursor_at: string;
}

type Filter = Omit<ListAttemptsQuery, 'limit' | 'cursor'> & { after?: [string, string, string] };

const CLASS_LOW = { '2xx': 200, '4xx': 400, '5xx': 500 } as const;

/**
 * Attempts of the webhook's deliveries, newest first by (started_at, delivery_id, number): a range
 * of the attempts' (webhook_id, started_at, …) index (migration 029), each joined to its delivery.
 */
export async function selectWebhookAttempts(
  db: Knex,
  webhookId: string,
  f: Filter,
  limit: number,
): Promise<WebhookAttemptRow[]> {
  const q = db('webhook_delivery_attempts as a')
    .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .where('a.webhook_id', webhookId)
    // Also on the delivery: a rare event_type may then be found through the deliveries' index.
    .andWhere('d.webhook_id', webhookId)
    .select('a.*', 'd.event_type', 'd.workflow_id', db.raw(`${isoSql('a.started_at')} as cursor_at`))
    .orderBy([
      { column: 'a.started_at', order: 'desc' },
      { column: 'a.delivery_id', order: 'desc' },
      { column: 'a.number', order: 'desc' },
    ])
    .limit(limit);
  // A 2xx whose body then timed out is a failure (the send records its error): outcome = no error + 2xx.
  const ok = '(a.error_message is null and a.http_status between 200 and 299)';
  if (f.status === 'delivered') q.whereRaw(ok);
  if (f.status === 'failed') q.whereRaw(`not coalesce(${ok}, false)`);
  if (f.http_status) q.whereBetween('a.http_status', [CLASS_LOW[f.http_status], CLASS_LOW[f.http_status] + 99]);
  if (f.since) q.where('a.started_at', '>=', f.since);
  if (f.until) q.where('a.started_at', '<', f.until);
  if (f.event_type) q.where('d.event_type', f.event_type);
  if (f.after) q.whereRaw('(a.started_at, a.delivery_id, a.number) < (?::timestamptz, ?::uuid, ?::int)', f.after);
  return (await q) as WebhookAttemptRow[];
}

/** Deliveries created since `since`, counted by bucket (hour or UTC day) and status. */
export async function countDeliveries(db: Knex, webhookId: string, since: Date, unit: 'hour' | 'day') {
  const rows = await db('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .andWhere('created_at', '>=', since)
    .select(db.raw(`date_trunc(?, created_at at time zone 'UTC') at time zone 'UTC' as bucket`, [unit]), 'status')
    .count<{ bucket: Date; status: string; count: string }[]>('* as count')
    .groupBy('bucket', 'status');
  return rows.map((r) => ({ bucket: r.bucket, status: r.status, count: Number(r.count) }));
}

/** The attempts of those deliveries: how many, and their durations' median and 95th percentile. */
export async function attemptTotals(db: Knex, webhookId: string, since: Date) {
  const row = await db('webhook_delivery_attempts as a')
    .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    // Both sides' webhook: the planner may then read either index, never the whole attempts table.
    .where('a.webhook_id', webhookId)
    .andWhere('d.webhook_id', webhookId)
    .andWhere('d.created_at', '>=', since)
    .first(
      db.raw('count(*)::int as attempts'),
      db.raw('percentile_cont(0.5) within group (order by a.duration_ms) as p50'),
      db.raw('percentile_cont(0.95) within group (order by a.duration_ms) as p95'),
    );
  const r = row as { attempts: number; p50: number | null; p95: number | null };
  // Interpolation in float8 leaves noise such as 799.9999999999998: hundredths of a ms are plenty.
  const ms = (v: number | null) => (v === null ? null : Math.round(Number(v) * 100) / 100);
  return { attempts: r.attempts, p50: ms(r.p50), p95: ms(r.p95) };
}
