import type { Schema } from '../../../api/types';

/**
 * `GET /share/:token` answers its resource as `unknown` (one shape per type): these narrow the two
 * types the page renders itself. Anything else (or a shape the page does not know) stays raw JSON.
 */
type Comparison = Schema<'ExperimentComparison'>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An experiment comparison as `GET /experiments/compare` answers it. */
export const asComparison = (v: unknown): Comparison | null =>
  isObject(v) &&
  Array.isArray(v.experiments) &&
  v.experiments.every((x) => isObject(x) && typeof x.id === 'string' && isObject(x.aggregate)) &&
  Array.isArray(v.items) &&
  Array.isArray(v.regressions)
    ? (v as unknown as Comparison)
    : null;

export interface StatsFigure {
  key: string;
  label: string;
  value: string;
}
export interface StatsView {
  view: string;
  from: string | null;
  to: string | null;
  figures: StatsFigure[];
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
/** `cache_read_tokens` → `Cache read tokens`, `latency_p95_ms` → `Latency p95`, `cost_usd` → `Cost`. */
export const label = (key: string) => {
  const words = key
    .replace(/_(usd|ms)$/, '')
    .replace(/^ttft_/, 'time to first token ')
    .replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** A saved stats view's current answer: its totals, each with the formatter its name calls for. */
export function asStats(v: unknown, format: (key: string, value: number | null) => string): StatsView | null {
  if (!isObject(v) || !isObject(v.totals)) return null;
  const figures = Object.entries(v.totals)
    .filter(([, x]) => typeof x === 'number' || x === null)
    .map(([key, x]) => ({ key, label: label(key), value: format(key, x as number | null) }));
  return { view: str(v.view) ?? 'requests', from: str(v.from), to: str(v.to), figures };
}
