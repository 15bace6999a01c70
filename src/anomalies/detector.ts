/**
 * The robust statistics of the anomaly detector (pure; docs/anomalies.md).
 *
 * A measure's last 60 minutes are compared with the same measure over the hours of the trailing
 * 7 days: median and MAD (median absolute deviation), scale = 1.4826 × MAD (the standard
 * deviation for normal data, but unmoved by the spikes a baseline holds), floored so a flat
 * baseline (MAD 0) cannot make every small change an anomaly. Score = |observed − median| / scale.
 */
export const MEASURES = ['cost', 'requests', 'error_rate', 'latency_p95', 'tokens_per_request'] as const;
export type Measure = (typeof MEASURES)[number];
export const DIMENSIONS = ['project', 'model', 'user'] as const;

/** A score at or above this is an anomaly (about 5 standard deviations of the baseline). */
const SCORE_THRESHOLD = 5;
/** Baseline hours with traffic needed before a measure is judged at all. */
export const MIN_BASELINE_HOURS = 24;
/** Calls needed in the window for rates, percentiles and per-call averages. */
const MIN_WINDOW_REQUESTS = 20;
/** Same-hour-of-day points (of 7) with traffic needed to compare with that hour only. */
const MIN_SEASONAL_POINTS = 5;

interface Rule {
  /** Which ways count: a drop in errors or latency is good news. */
  directions: readonly ('up' | 'down')[];
  /** Smallest scale: an absolute floor, and 10 % of the median. */
  floor: number;
  /** Whether the window needs MIN_WINDOW_REQUESTS calls (ratios and percentiles do). */
  needsCalls: boolean;
}
const RULES: Record<Measure, Rule> = {
  requests: { directions: ['up', 'down'], floor: 5, needsCalls: false },
  cost: { directions: ['up'], floor: 0.01, needsCalls: false },
  error_rate: { directions: ['up'], floor: 0.02, needsCalls: true },
  latency_p95: { directions: ['up'], floor: 50, needsCalls: true },
  tokens_per_request: { directions: ['up'], floor: 50, needsCalls: true },
};

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median absolute deviation from the median. */
export function mad(xs: readonly number[]): number {
  const m = median(xs);
  return median(xs.map((x) => Math.abs(x - m)));
}

/**
 * One baseline hour: its hour of day (UTC), its calls, and the measure's value (null for a ratio
 * or percentile of an hour with fewer than MIN_POINT_CALLS calls: too few to mean anything).
 */
export interface Point {
  hourOfDay: number;
  calls: number;
  value: number | null;
}
export const MIN_POINT_CALLS = 5;

export interface Verdict {
  direction: 'up' | 'down';
  median: number;
  low: number;
  high: number;
  score: number;
  seasonal: boolean;
  points: number;
}

/**
 * Judges one observation against its baseline: null when the data is too thin to say (documented
 * minimums) or the observation is within the expected range.
 */
export function judge(
  measure: Measure,
  observed: number | null,
  windowRequests: number,
  baseline: readonly Point[],
  hourOfDay: number,
): Verdict | null {
  const rule = RULES[measure];
  if (observed === null || !Number.isFinite(observed)) return null;
  if (rule.needsCalls && windowRequests < MIN_WINDOW_REQUESTS) return null;
  if (baseline.filter((p) => p.calls > 0).length < MIN_BASELINE_HOURS) return null;
  const withData = baseline.filter((p) => p.value !== null) as { hourOfDay: number; value: number }[];
  if (withData.length === 0) return null;
  // Seasonality: the same hour of day on the previous days, when most of them had traffic.
  const sameHour = withData.filter((p) => p.hourOfDay === hourOfDay);
  const seasonal = sameHour.length >= MIN_SEASONAL_POINTS;
  const values = (seasonal ? sameHour : withData).map((p) => p.value);
  const m = median(values);
  const scale = Math.max(1.4826 * mad(values), rule.floor, 0.1 * Math.abs(m));
  const score = Math.abs(observed - m) / scale;
  const direction = observed >= m ? 'up' : 'down';
  const low = Math.max(0, m - SCORE_THRESHOLD * scale);
  const high = m + SCORE_THRESHOLD * scale;
  if (score < SCORE_THRESHOLD || !rule.directions.includes(direction)) return null;
  return { direction, median: m, low, high, score: Math.round(score * 100) / 100, seasonal, points: values.length };
}
