/**
 * The comparison's aggregates and deltas. The API documents them as open objects
 * (`ExperimentComparison.experiments[].aggregate`), so they are read here field by field: a
 * field missing or of another type reads as null, never as a crash.
 */
export interface ScoreInterval {
  name: string;
  mean: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  n: number | null;
}
export interface Aggregate {
  items: number | null;
  scores: ScoreInterval[];
  costUsd: number | null;
  p50: number | null;
  p95: number | null;
  errors: number | null;
}
export interface Delta {
  scores: Map<string, number | null>;
  costUsd: number | null;
  p50: number | null;
  p95: number | null;
  errors: number | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

export function readAggregate(a: Record<string, unknown>): Aggregate {
  return {
    items: num(a.items),
    scores: list(a.scores).map((s) => ({
      name: String(s.name ?? ''),
      mean: num(s.mean),
      ciLow: num(s.ci_low),
      ciHigh: num(s.ci_high),
      n: num(s.n),
    })),
    costUsd: num(a.cost_usd),
    p50: num(a.latency_p50_ms),
    p95: num(a.latency_p95_ms),
    errors: num(a.errors),
  };
}

export function readDelta(d: Record<string, unknown> | null): Delta | null {
  if (!d) return null;
  return {
    scores: new Map(list(d.scores).map((s) => [String(s.name ?? ''), num(s.delta)])),
    costUsd: num(d.cost_usd),
    p50: num(d.latency_p50_ms),
    p95: num(d.latency_p95_ms),
    errors: num(d.errors),
  };
}

/** Every score name across the experiments, sorted. */
export const scoreNames = (aggs: Aggregate[]) => [...new Set(aggs.flatMap((a) => a.scores.map((s) => s.name)))].sort();

const r3 = (v: number) => String(Math.round(v * 1000) / 1000);
/** `0.9 [0.84, 0.96]`; the interval is left out when the API sends null (a t interval under 2 items). */
export const meanWithInterval = (s: ScoreInterval | undefined) =>
  !s || s.mean === null
    ? '—'
    : s.ciLow === null || s.ciHigh === null
      ? r3(s.mean)
      : `${r3(s.mean)} [${r3(s.ciLow)}, ${r3(s.ciHigh)}]`;
/** A signed delta: `+0.07`, `−0.1`, `±0`. */
export const signed = (v: number | null, digits = 3) =>
  v === null
    ? '—'
    : v === 0
      ? '±0'
      : `${v > 0 ? '+' : '−'}${String(Math.round(Math.abs(v) * 10 ** digits) / 10 ** digits)}`;
/** The baseline's interval and this one's do not overlap: the difference is unlikely to be noise. */
export const separated = (a: ScoreInterval | undefined, b: ScoreInterval | undefined) =>
  !!a &&
  !!b &&
  a.ciLow !== null &&
  a.ciHigh !== null &&
  b.ciLow !== null &&
  b.ciHigh !== null &&
  (b.ciLow > a.ciHigh || b.ciHigh < a.ciLow);
