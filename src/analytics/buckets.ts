import { badRequest } from '../http/errors';

/**
 * Time buckets of a stats answer. Buckets are aligned to the wall clock of `tz`: a day starts at
 * local midnight (23 or 25 hours long across a DST change), a week on Monday, a month on the 1st;
 * minute and hour buckets are wall-clock multiples from local midnight.
 */
type Unit = 'minute' | 'hour' | 'day' | 'week' | 'month';
export interface Granularity {
  unit: Unit;
  step: number;
  /** Nominal length in ms (months: 30 days), for bucket counts. */
  ms: number;
}

const MIN = 60_000;
const H = 60 * MIN;
const D = 24 * H;
/** The ladder `auto` climbs: the first step giving at most ~50 buckets (at least an hour over a day or more). */
const LADDER: Granularity[] = [
  { unit: 'minute', step: 1, ms: MIN },
  { unit: 'minute', step: 5, ms: 5 * MIN },
  { unit: 'minute', step: 15, ms: 15 * MIN },
  { unit: 'minute', step: 30, ms: 30 * MIN },
  { unit: 'hour', step: 1, ms: H },
  { unit: 'hour', step: 3, ms: 3 * H },
  { unit: 'hour', step: 6, ms: 6 * H },
  { unit: 'hour', step: 12, ms: 12 * H },
  { unit: 'day', step: 1, ms: D },
  { unit: 'week', step: 1, ms: 7 * D },
  { unit: 'month', step: 1, ms: 30 * D },
];
export const GRANULARITIES = ['auto', 'minute', 'hour', 'day', 'week', 'month'] as const;
const MAX_BUCKETS = 2_000;
const AUTO_BUCKETS = 50;

export function resolveGranularity(g: (typeof GRANULARITIES)[number], fromMs: number, toMs: number): Granularity {
  const span = toMs - fromMs;
  // A day or more is never cut finer than hours: whole hours come from the hourly rollups (a
  // day's default view in 30-minute buckets read ~10x more rows), and hourly is what a day's chart shows elsewhere.
  const chosen =
    g === 'auto'
      ? (LADDER.find((l) => span / l.ms <= AUTO_BUCKETS && (span < D || l.ms >= H)) ?? LADDER[LADDER.length - 1]!)
      : LADDER.find((l) => l.unit === g && l.step === 1)!;
  if (span / chosen.ms > MAX_BUCKETS) {
    throw badRequest(
      `${Math.ceil(span / chosen.ms)} ${g} buckets: at most ${MAX_BUCKETS}; ` +
        'choose a coarser granularity or a shorter range',
      'too_many_buckets',
    );
  }
  return chosen;
}

/** An IANA zone PostgreSQL and Intl both know, else 400. */
export function checkTimeZone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw badRequest(`unknown time zone ${JSON.stringify(tz)} (an IANA name like Europe/Berlin)`, 'invalid_time_zone');
  }
  return tz;
}

/** Offset of `tz` from UTC in minutes at an instant. */
function offsetMinutes(tz: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(at);
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'));
  return Math.round((wall - Math.floor(at / MIN) * MIN) / MIN);
}

/** Whether every bucket boundary of the answer is a whole UTC hour (so hourly rollups can fill it). */
export function hourAligned(tz: string, fromMs: number, toMs: number, g: Granularity): boolean {
  if (g.unit === 'minute') return false;
  if (fromMs % H !== 0 || toMs % H !== 0) return false;
  return offsetMinutes(tz, fromMs) % 60 === 0 && offsetMinutes(tz, toMs) % 60 === 0;
}

/**
 * SQL turning a timestamptz expression into its bucket's local start (timestamp without zone);
 * its one `?` takes the zone. `<that> at time zone tz` is the bucket as an instant.
 */
export function localBucketSql(expr: string, g: Granularity): string {
  // Wall-clock bins from a Monday local midnight, so 3/6/12-hour bins start at local midnight.
  if (g.unit === 'minute' || g.unit === 'hour')
    return `date_bin(interval '${g.step} ${g.unit}', ${expr} at time zone ?, timestamp '2000-01-03')`;
  return `date_trunc('${g.unit}', ${expr} at time zone ?)`;
}
