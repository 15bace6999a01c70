import type { Knex } from 'knex';
import { z } from 'zod';
import { badRequest } from '../http/errors';
import { localBucketSql, type Granularity } from './buckets';
import { sortingQuery } from './sort-query';

/**
 * Stats of the trace and span views, from the raw traces/spans tables (no rollups: see
 * docs/analytics.md). A trace's tokens and cost are its spans'.
 */
const int = z.number().int();
const ms = z.number().nullable();
export const traceMeasuresSchema = z.object({
  count: int.describe('traces or spans'),
  errors: int,
  error_rate: z.number(),
  prompt_tokens: int,
  completion_tokens: int,
  total_tokens: int,
  cost_usd: z.number(),
  duration_avg_ms: ms,
  duration_p50_ms: ms,
  duration_p90_ms: ms,
  duration_p95_ms: ms,
  duration_p99_ms: ms,
  unique_users: int.nullable(),
  unique_sessions: int.nullable(),
});
export type TraceMeasures = z.output<typeof traceMeasuresSchema>;

export interface TraceStatsQuery {
  view: 'traces' | 'spans';
  projectIds: string[];
  from: string;
  to: string;
  granularity: Granularity;
  tz: string;
  userId?: string | undefined;
  sessionId?: string | undefined;
  name?: string | undefined;
  model?: string | undefined;
  spanType?: string | undefined;
  metadata: { key: string; value: string }[];
  groupBy: 'span_type' | 'model' | 'name' | 'user' | 'session' | null;
  top: number;
  /** `raw` keeps the spans view on the raw spans (exact percentiles); `auto` lets the span rollups answer. */
  source?: 'auto' | 'raw' | undefined;
}

export function parseMetadataPairs(raw: string[] | undefined) {
  return (raw ?? []).map((s) => {
    const at = s.indexOf(':');
    if (at <= 0) throw badRequest('a metadata filter is <key>:<value>', 'invalid_filter');
    return { key: s.slice(0, at), value: s.slice(at + 1) };
  });
}

/**
 * A row of `measures` (int8 counts, numeric sums and avg as numbers; the duration percentiles a
 * float8[]); users and sessions only in the traces view. Every column may be missing: an empty
 * answer's measures come from `{}`.
 */
interface TraceMeasuresRow {
  count?: number;
  errors?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  cost_usd?: number;
  dur_avg?: number | null;
  dur_p?: number[] | null;
  users?: number;
  sessions?: number;
}
/** A grouping-sets row of traceStats: its bucket (epoch ms, null in a total), a total (1) or a bucket (0). */
interface TraceStatsRow extends TraceMeasuresRow {
  b: number | null;
  is_total: number;
}
const SUMS = `count(*) as count, count(*) filter (where err) as errors, coalesce(sum(pt), 0) as prompt_tokens,
  coalesce(sum(ct), 0) as completion_tokens, coalesce(sum(tt), 0) as total_tokens, coalesce(sum(cost), 0) as cost_usd,
  avg(dur) as dur_avg, percentile_cont(array[0.5,0.9,0.95,0.99]::float8[]) within group (order by dur) as dur_p`;
// Spans carry no user or session: their distinct counts (a sort each per group) are skipped.
const measures = (view: 'traces' | 'spans') =>
  view === 'traces' ? `${SUMS}, count(distinct uid) as users, count(distinct sid) as sessions` : SUMS;

function inner(q: TraceStatsQuery): { sql: string; args: Knex.RawBinding[] } {
  const a: Knex.RawBinding[] = [];
  const w: string[] = [];
  const t = q.view === 'traces' ? 't' : 's';
  const time = q.view === 'traces' ? 't.start_time' : 's.start_time';
  w.push(`${t}.project_id = any(?::uuid[])`, `${time} >= ?`, `${time} < ?`);
  a.push(q.projectIds, q.from, q.to);
  if (q.view === 'traces') {
    if (q.userId) {
      w.push('t.user_id = ?');
      a.push(q.userId);
    }
    if (q.sessionId) {
      w.push('t.session_id = ?');
      a.push(q.sessionId);
    }
    if (q.name) {
      w.push('t.name = ?');
      a.push(q.name);
    }
  } else {
    if (q.name) {
      w.push('s.name = ?');
      a.push(q.name);
    }
    if (q.model) {
      w.push('s.model = ?');
      a.push(q.model);
    }
    if (q.spanType) {
      w.push('s.span_type = ?');
      a.push(q.spanType);
    }
  }
  for (const m of q.metadata) {
    w.push(`${t}.metadata @> ?::jsonb`);
    a.push(JSON.stringify({ [m.key]: m.value }));
  }
  const group = q.groupBy
    ? { span_type: 's.span_type', model: 's.model', name: `${t}.name`, user: 't.user_id', session: 't.session_id' }[
        q.groupBy
      ]
    : 'null::text';
  const cols =
    q.view === 'traces'
      ? `t.status = 'error' as err, a.pt, a.ct, a.tt, a.cost, t.duration_ms as dur,
         t.user_id collate "C" as uid, t.session_id collate "C" as sid`
      : `s.status = 'error' as err, s.prompt_tokens as pt, s.completion_tokens as ct, s.total_tokens as tt,
         s.cost_usd as cost, s.duration_ms as dur, null::text as uid, null::text as sid`;
  const from =
    q.view === 'traces'
      ? `traces t left join lateral (select sum(prompt_tokens) pt, sum(completion_tokens) ct, sum(total_tokens) tt,
                                            sum(cost_usd) cost
           from spans s where s.project_id = t.project_id and s.trace_id = t.id) a on true`
      : 'spans s';
  // b is the bucket's local start (a timestamp): turning it into epoch ms per row (numeric
  // arithmetic) cost more than the grouping itself; the outer query converts once per group.
  // Keys compare as bytes ("C"): the same groups, and locale-aware sorting cost twice as much.
  return {
    sql: `select ${localBucketSql(time, q.granularity)} as b, ${group} collate "C" as g, ${cols}
            from ${from} where ${w.join(' and ')}`,
    args: [q.tz, ...a],
  };
}
const bucketMs = '(extract(epoch from b at time zone ?) * 1000)::bigint';

export function traceMeasuresOf(r: TraceMeasuresRow, view: 'traces' | 'spans'): TraceMeasures {
  const count = Number(r.count ?? 0);
  const errors = Number(r.errors ?? 0);
  const p = r.dur_p ?? [null, null, null, null];
  const round = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 1000);
  return {
    count,
    errors,
    error_rate: count ? Math.round((errors / count) * 1e6) / 1e6 : 0,
    prompt_tokens: Number(r.prompt_tokens ?? 0),
    completion_tokens: Number(r.completion_tokens ?? 0),
    total_tokens: Number(r.total_tokens ?? 0),
    cost_usd: Math.round(Number(r.cost_usd ?? 0) * 1e10) / 1e10,
    duration_avg_ms: round(r.dur_avg),
    duration_p50_ms: round(p[0]),
    duration_p90_ms: round(p[1]),
    duration_p95_ms: round(p[2]),
    duration_p99_ms: round(p[3]),
    unique_users: view === 'traces' ? Number(r.users ?? 0) : null,
    unique_sessions: view === 'traces' ? Number(r.sessions ?? 0) : null,
  };
}

/** Totals, non-empty buckets, and per top group totals and buckets: two scans, run side by side. */
export async function traceStats(db: Knex, q: TraceStatsQuery) {
  const i = inner(q);
  const m = measures(q.view);
  const head = (group: string) => `select ${group}${bucketMs} as b, grouping(b) as is_total, ${m} from (${i.sql}) x`;
  const [rows, g] = await Promise.all([
    sortingQuery<TraceStatsRow>(db, `${head('')} group by grouping sets ((b), ())`, [q.tz, ...i.args]),
    q.groupBy
      ? sortingQuery<TraceStatsRow & { g: string }>(
          db,
          `${head('g, ')} where g is not null group by grouping sets ((g), (g, b))`,
          [q.tz, ...i.args],
        )
      : null,
  ]);
  const totals = traceMeasuresOf(rows.find((r) => Number(r.is_total) === 1) ?? {}, q.view);
  const series = new Map<number, TraceMeasures>();
  for (const r of rows) if (Number(r.is_total) === 0) series.set(Number(r.b), traceMeasuresOf(r, q.view));
  if (!g) return { source: 'raw' as const, totals, series, breakdown: null };
  const groups = new Map<string, { measures?: TraceMeasures; series: Map<number, TraceMeasures> }>();
  for (const r of g) {
    const cell = groups.get(r.g) ?? { series: new Map<number, TraceMeasures>() };
    groups.set(r.g, cell);
    if (Number(r.is_total) === 1) cell.measures = traceMeasuresOf(r, q.view);
    else cell.series.set(Number(r.b), traceMeasuresOf(r, q.view));
  }
  const ranked = [...groups.entries()].sort(
    ([ka, a], [kb, b]) => b.measures!.count - a.measures!.count || (ka < kb ? -1 : 1),
  );
  return {
    source: 'raw' as const,
    totals,
    series,
    breakdown: {
      items: ranked.slice(0, q.top).map(([key, c]) => ({ key, measures: c.measures!, series: c.series })),
      rest: ranked.length > q.top,
    },
  };
}
