/**
 * Number and time formats, the same on every page and chart axis. A non-zero cost never reads as
 * $0 or $0.00 (LLM calls cost fractions of a cent): below a cent it keeps two significant digits.
 */
type N = number | null | undefined;
const DASH = '—';
const grouped = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const compactFmt = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const usdLarge = new Intl.NumberFormat('en', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const usdCents = new Intl.NumberFormat('en', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});
const usdTiny = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });

export function usd(v: N): string {
  if (v === null || v === undefined || Number.isNaN(v)) return DASH;
  const a = Math.abs(v);
  if (a === 0) return '$0';
  return (a >= 1 ? usdLarge : a >= 0.01 ? usdCents : usdTiny).format(v);
}

/** Whole numbers grouped by thousands: 1,234,567. */
export const int = (v: N) => (v === null || v === undefined ? DASH : grouped.format(v));

/** Short numbers for tight places (chart axes): 1.2K, 3.4M. */
export const compact = (v: N) =>
  v === null || v === undefined ? DASH : Math.abs(v) < 1000 ? grouped.format(v) : compactFmt.format(v);

/** Durations: 850 ms, 1.25 s, 2 min 5 s. */
export function ms(v: N): string {
  if (v === null || v === undefined) return DASH;
  if (Math.abs(v) < 1000) return `${grouped.format(Math.round(v))} ms`;
  if (Math.abs(v) < 60_000) return `${(v / 1000).toFixed(2).replace(/\.?0+$/, '')} s`;
  const s = Math.round(v / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A ratio as a percentage: 0.0123 → 1.2%. */
export const pct = (v: N) =>
  v === null || v === undefined ? DASH : `${(v * 100).toFixed(v > 0 && v < 0.001 ? 2 : 1)}%`;

/** A count with its noun: 1 item, 2 items. */
export const count = (n: number, noun: string) => `${grouped.format(n)} ${noun}${n === 1 ? '' : 's'}`;

/**
 * A moment in the reader's locale and zone, short enough for a table cell on a phone:
 * "Nov 26, 4:47:05 PM" (the year only when it is not this one).
 */
export function time(v: string | null | undefined): string {
  if (!v) return DASH;
  const d = new Date(v);
  const year = d.getFullYear() === new Date().getFullYear() ? {} : { year: 'numeric' as const };
  return d.toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    ...year,
  });
}

/** Axis labels by unit, so no axis reads `0 0 0 0`. */
export type Unit = 'usd' | 'ms' | 'count' | 'tokens';
export function axis(unit: Unit, v: number): string {
  if (unit === 'usd') return v === 0 ? '$0' : Math.abs(v) >= 1000 ? `$${compactFmt.format(v)}` : usd(v);
  if (unit === 'ms') return ms(v);
  return compact(v);
}
