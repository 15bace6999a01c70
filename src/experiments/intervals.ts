/**
 * The 95 % intervals of the comparison's mean scores (docs/experiments.md):
 * - Student's t for numeric and categorical scores: mean ± t(0.975, n−1)·s/√n, clamped to the range the
 *   scores' configs give (a mean never leaves it); null under 2 items (s is undefined for one).
 * - Wilson's score interval for boolean ones (the mean is a proportion): always within [0, 1], and
 *   defined from 1 item on.
 */

// jstat: one file, no dependencies, no install scripts; it ships no types, so the two functions used are typed here.
interface JStat {
  studentt: { inv(p: number, dof: number): number };
  normal: { inv(p: number, mean: number, sd: number): number };
}
// Required on first use: heap that a process never comparing experiments need not hold.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS build without types
const jStat = () => (require('jstat') as { jStat: JStat }).jStat;

/** The score's shape that picks its interval: Wilson for booleans, t otherwise, within [low, high] when known. */
export interface ScoreShape {
  boolean: boolean;
  low: number | null;
  high: number | null;
}
type IntervalKind = 'student_t' | 'wilson';
export interface Interval {
  kind: IntervalKind;
  low: number | null;
  high: number | null;
}

/** z(0.975) = 1.959964…, the normal quantile Wilson's interval uses. */
const zQuantile = () => jStat().normal.inv(0.975, 0, 1);

/** t(0.975, df), the two-sided 95 % Student's t quantile. */
const tQuantile = (df: number) => jStat().studentt.inv(0.975, df);

/** mean ± t(0.975, n−1)·s/√n over the values (s the sample standard deviation), within [low, high]. */
export function studentT(m: number, s: number, n: number, low: number | null, high: number | null): Interval {
  if (n < 2) return { kind: 'student_t', low: null, high: null };
  const half = (tQuantile(n - 1) * s) / Math.sqrt(n);
  return {
    kind: 'student_t',
    low: low === null ? m - half : Math.max(low, m - half),
    high: high === null ? m + half : Math.min(high, m + half),
  };
}

/** Wilson: (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n), for a proportion p over n ≥ 1 items. */
export function wilson(p: number, n: number): Interval {
  if (n < 1) return { kind: 'wilson', low: null, high: null };
  const Z = zQuantile();
  const z2 = Z * Z;
  const centre = p + z2 / (2 * n);
  const half = Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const d = 1 + z2 / n;
  // Within [0, 1] by construction; the clamp only absorbs rounding at p = 0 or 1.
  return { kind: 'wilson', low: Math.max(0, (centre - half) / d), high: Math.min(1, (centre + half) / d) };
}

/** One row of the scores of a name: its data type and its config's bounds (numeric min/max, categories). */
export interface ShapeRow {
  name: string;
  data_type: 'numeric' | 'categorical' | 'boolean';
  min: number | null;
  max: number | null;
  categories: { label: string; value: number }[] | null;
}

const boundsOf = (r: ShapeRow): [number | null, number | null] => {
  if (r.data_type === 'boolean') return [0, 1];
  if (r.data_type === 'numeric') return [r.min ?? null, r.max ?? null];
  const values = (r.categories ?? []).map((c) => Number(c.value)).filter(Number.isFinite);
  return values.length ? [Math.min(...values), Math.max(...values)] : [null, null];
};

/**
 * Per score name: boolean when every score of it is; its bounds those every score's config (or type)
 * gives, the widest of them — a side none bounds for one of its scores stays open.
 */
export function shapesByName(rows: ShapeRow[]): Map<string, ScoreShape> {
  const out = new Map<string, ScoreShape>();
  for (const r of rows) {
    const [lo, hi] = boundsOf(r);
    const was = out.get(r.name);
    out.set(
      r.name,
      was === undefined
        ? { boolean: r.data_type === 'boolean', low: lo, high: hi }
        : {
            boolean: was.boolean && r.data_type === 'boolean',
            low: was.low === null || lo === null ? null : Math.min(was.low, lo),
            high: was.high === null || hi === null ? null : Math.max(was.high, hi),
          },
    );
  }
  return out;
}
