import type { Knex } from 'knex';
import { addTo, decodeIntArray, merge } from './histogram';
import type { StatsQuery } from './plan';
import { isoMs } from '../db/convert';

/**
 * End users over long ranges, from the daily per-user rollups (`end_user_days_live`): whole UTC
 * days read one row per user and day; the ragged hours at either end read the hourly per-user
 * rollups (ranking) or the users' raw calls (percentiles, binned into the same histograms, so
 * they stay within 2 % like every rollup percentile).
 */
const D = 86_400_000;

interface Split {
  /** Whole UTC days [d0, d1) as dates, or null when the range holds none. */
  days: [string, string] | null;
  /** The hours outside the whole days. */
  edges: [string, string][];
}

function splitDays(q: StatsQuery): Split {
  const from = Date.parse(q.from);
  const to = Date.parse(q.to);
  const d0 = Math.ceil(from / D) * D;
  const d1 = Math.floor(to / D) * D;
  if (d1 <= d0) return { days: null, edges: [[q.from, q.to]] };
  const edges: [string, string][] = [];
  if (from < d0) edges.push([q.from, isoMs(d0)]);
  if (d1 < to) edges.push([isoMs(d1), q.to]);
  return { days: [isoMs(d0).slice(0, 10), isoMs(d1).slice(0, 10)], edges };
}

const ORDER_COL = {
  requests: 'requests',
  cost_usd: 'cost_usd',
  total_tokens: 'total_tokens',
  errors: 'errors',
} as const;

/** The top `limit` end users of the range by the query's order (ties by id). */
export async function rankUsers(db: Knex, q: StatsQuery, limit: number): Promise<string[]> {
  const col = ORDER_COL[q.orderBy];
  const s = splitDays(q);
  const parts: string[] = [];
  const args: Knex.RawBinding[] = [];
  if (s.days) {
    parts.push(
      `select user_id as k, ${col} as v from end_user_days_live
        where project_id = any(?::uuid[]) and day >= ?::date and day < ?::date`,
    );
    args.push(q.projectIds, ...s.days);
  }
  for (const [a, b] of s.edges) {
    parts.push(
      `select value, ${col} from request_rollups_live
        where project_id = any(?::uuid[]) and dim = 'user' and bucket >= ? and bucket < ?`,
    );
    args.push(q.projectIds, a, b);
  }
  const { rows } = await db.raw<{ rows: { k: string }[] }>(
    `select k from (${parts.join(' union all ')}) x group by k order by sum(v) desc, k limit ?`,
    [...args, limit],
  );
  return rows.map((r) => r.k);
}

export interface UserHists {
  latency: number[];
  ttft: number[];
}

/** Latency and time-to-first-token histograms of a few end users over the range. */
export async function userHists(db: Knex, q: StatsQuery, keys: string[]): Promise<Map<string, UserHists>> {
  const s = splitDays(q);
  const hists = new Map<string, UserHists>();
  const of = (k: string) => hists.get(k) ?? hists.set(k, { latency: [], ttft: [] }).get(k)!;
  const reads: Promise<void>[] = [];
  if (s.days) {
    reads.push(
      db
        .raw<{ rows: { k: string; latency_hist: Buffer | null; ttft_hist: Buffer | null }[] }>(
          `select user_id as k, array_send(latency_hist) as latency_hist, array_send(ttft_hist) as ttft_hist
             from end_user_days_live
            where project_id = any(?::uuid[]) and user_id = any(?::text[]) and day >= ?::date and day < ?::date`,
          [q.projectIds, keys, ...s.days],
        )
        .then(({ rows }) => {
          for (const r of rows) {
            merge(of(r.k).latency, decodeIntArray(r.latency_hist));
            merge(of(r.k).ttft, decodeIntArray(r.ttft_hist));
          }
        }),
    );
  }
  for (const [a, b] of s.edges) {
    reads.push(
      db
        .raw<{ rows: { k: string; latency_ms: number; ttfb_ms: number | null; streamed: boolean }[] }>(
          `select user_id as k, latency_ms, ttfb_ms, streamed from requests
            where project_id = any(?::uuid[]) and user_id = any(?::text[]) and created_at >= ? and created_at < ?`,
          [q.projectIds, keys, a, b],
        )
        .then(({ rows }) => {
          for (const r of rows) {
            addTo(of(r.k).latency, r.latency_ms);
            if (r.streamed && r.ttfb_ms !== null) addTo(of(r.k).ttft, r.ttfb_ms);
          }
        }),
    );
  }
  await Promise.all(reads);
  return hists;
}
