import { z } from 'zod';
import { merge, percentiles } from './histogram';

/**
 * The measures of one stats cell (a bucket, a group, the totals). Cost is the priced calls' cost;
 * self-hosted calls have no price and are counted apart (never as $0), and so are calls whose
 * model has no known price.
 */
const int = z.number().int();
const ms = z.number().nullable();
export const measuresSchema = z.object({
  requests: int,
  errors: int,
  error_rate: z.number().describe('errors / requests (0 when there are none); an error is a status ≥ 400'),
  prompt_tokens: int,
  completion_tokens: int,
  total_tokens: int,
  cache_read_tokens: int,
  cache_write_tokens: int,
  cost_usd: z.number(),
  self_hosted_requests: int,
  unpriced_requests: int.describe('calls of a provider with prices whose model has none'),
  cache_hits: int,
  cache_saved_usd: z.number().describe('what the cache hits would have cost upstream'),
  latency_avg_ms: ms,
  latency_p50_ms: ms,
  latency_p90_ms: ms,
  latency_p95_ms: ms,
  latency_p99_ms: ms,
  ttft_p50_ms: ms.describe('time to first token of streamed calls'),
  ttft_p95_ms: ms,
  unique_users: int
    .nullable()
    .describe('null where hourly rollups answered and another dimension filters (ask source=raw)'),
  unique_sessions: int.nullable(),
});
export type Measures = z.output<typeof measuresSchema>;

/** Additive sums as SQL returns them (bigint/numeric arrive as strings). */
export interface Sums {
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  self_hosted_requests: number;
  unpriced_requests: number;
  cache_hits: number;
  cache_saved_usd: number;
  latency_sum: number;
}
export const SUM_KEYS: (keyof Sums)[] = [
  'requests',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cost_usd',
  'self_hosted_requests',
  'unpriced_requests',
  'cache_hits',
  'cache_saved_usd',
  'latency_sum',
];

export const zeroSums = (): Sums => ({
  requests: 0,
  errors: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost_usd: 0,
  self_hosted_requests: 0,
  unpriced_requests: 0,
  cache_hits: 0,
  cache_saved_usd: 0,
  latency_sum: 0,
});
/**
 * The sums' columns of a stats row (count, sum: int8 and numeric, parsed as numbers by src/db/knex.ts).
 * A `sum` over no values is NULL, and a column the row lacks counts 0 too.
 */
export type SumsRow = { [K in keyof Sums]?: number | null };
export function sumsOf(row: SumsRow): Sums {
  const s = zeroSums();
  for (const k of SUM_KEYS) s[k] = Number(row[k] ?? 0);
  return s;
}
export function addSums(a: Sums, b: Sums): Sums {
  for (const k of SUM_KEYS) a[k] += b[k];
  return a;
}

export interface Percentiles {
  latency: (number | null)[];
  ttft: (number | null)[];
}
export const LATENCY_PS = [0.5, 0.9, 0.95, 0.99];
export const TTFT_PS = [0.5, 0.95];
export const noPercentiles = (): Percentiles => ({
  latency: LATENCY_PS.map(() => null),
  ttft: TTFT_PS.map(() => null),
});

export function percentilesOfHists(latency: number[] | null, ttft: number[] | null): Percentiles {
  return {
    latency: percentiles(latency ?? [], LATENCY_PS),
    ttft: percentiles(ttft ?? [], TTFT_PS),
  };
}
export { merge as mergeHist };

const round = (v: number | null | undefined, digits = 3) =>
  v === null || v === undefined ? null : Math.round(v * 10 ** digits) / 10 ** digits;
const money = (v: number) => Math.round(v * 1e10) / 1e10;

export function toMeasures(
  s: Sums,
  p: Percentiles,
  uniques: { users: number | null; sessions: number | null },
): Measures {
  return {
    requests: s.requests,
    errors: s.errors,
    error_rate: s.requests ? round(s.errors / s.requests, 6)! : 0,
    prompt_tokens: s.prompt_tokens,
    completion_tokens: s.completion_tokens,
    total_tokens: s.total_tokens,
    cache_read_tokens: s.cache_read_tokens,
    cache_write_tokens: s.cache_write_tokens,
    cost_usd: money(s.cost_usd),
    self_hosted_requests: s.self_hosted_requests,
    unpriced_requests: s.unpriced_requests,
    cache_hits: s.cache_hits,
    cache_saved_usd: money(s.cache_saved_usd),
    latency_avg_ms: s.requests ? round(s.latency_sum / s.requests) : null,
    latency_p50_ms: round(p.latency[0]),
    latency_p90_ms: round(p.latency[1]),
    latency_p95_ms: round(p.latency[2]),
    latency_p99_ms: round(p.latency[3]),
    ttft_p50_ms: round(p.ttft[0]),
    ttft_p95_ms: round(p.ttft[1]),
    unique_users: uniques.users,
    unique_sessions: uniques.sessions,
  };
}

/** A point of a stats series: the bucket's start and its measures. */
export interface SeriesPoint extends Measures {
  bucket: string;
}
/** What a stats question answers (the analytics boundary's shape; src/analytics/store.ts). */
export interface StatsAnswer {
  source: 'rollup' | 'raw';
  totals: Measures;
  series: SeriesPoint[];
  breakdown: {
    items: (Measures & { key: string; series: SeriesPoint[] })[];
    other: (Measures & { series: SeriesPoint[] }) | null;
  } | null;
}
