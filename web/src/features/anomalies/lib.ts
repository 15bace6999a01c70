import type { RequestPoint } from '../../api/stats';
import type { Schema } from '../../api/types';
import type { ChartUnit } from '../../components/Chart';
import type { Unit } from '../../lib/format';
import * as fmt from '../../lib/format';

export type Anomaly = Schema<'Anomaly'>;

/** An observed value in the unit of its measure. */
export const value = (measure: Anomaly['measure'], v: number) =>
  measure === 'cost'
    ? fmt.usd(v)
    : measure === 'error_rate'
      ? fmt.pct(v)
      : measure === 'latency_p95'
        ? fmt.ms(v)
        : fmt.int(v);

/** The chart's unit for a measure (error rates are drawn in percent). */
export const chartUnit = (measure: Anomaly['measure']): Unit =>
  measure === 'cost' ? 'usd' : measure === 'latency_p95' ? 'ms' : measure === 'tokens_per_request' ? 'tokens' : 'count';

export const measureName = (m: Anomaly['measure']) => m.replace(/_/g, ' ');
export const where = (a: Pick<Anomaly, 'dimension' | 'dimension_value'>) =>
  a.dimension === 'project' ? 'whole project' : `${a.dimension}: ${a.dimension_value}`;

/** The filter of an anomaly's dimension, as `/stats` and the request log take it: a model, a user, or none. */
export const dimensionFilter = (a: Pick<Anomaly, 'dimension' | 'dimension_value'>) =>
  a.dimension === 'model' ? { model: a.dimension_value } : a.dimension === 'user' ? { user_id: a.dimension_value } : {};

const HOUR = 3_600_000;
/**
 * The hours drawn around an anomaly: from 24 hours before the hour it was detected in (its
 * window's end) to 6 hours after, never past the current hour (later hours have no calls yet).
 */
export function seriesRange(a: Pick<Anomaly, 'window'>, now = Date.now()) {
  const hour = Math.floor(Date.parse(a.window.end) / HOUR) * HOUR;
  const to = Math.min(hour + 7 * HOUR, Math.ceil(now / HOUR) * HOUR);
  return { from: new Date(hour - 24 * HOUR).toISOString(), to: new Date(to).toISOString() };
}

/**
 * The shaded span of the hourly chart: the hour buckets the anomaly's window falls in, half an hour
 * either side of their points (a point is drawn at its hour's start, a window rarely starts on the hour).
 */
export function windowHours(a: Pick<Anomaly, 'window'>) {
  const first = Math.floor(Date.parse(a.window.start) / HOUR) * HOUR;
  const last = Math.max(first, Math.floor((Date.parse(a.window.end) - 1) / HOUR) * HOUR);
  return { from: new Date(first - HOUR / 2).toISOString(), to: new Date(last + HOUR / 2).toISOString() };
}

/** A moment to the minute ("Nov 26, 10:00 AM"): hours and windows need no seconds. */
export const minute = (v: string) =>
  new Date(v).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** An anomaly's measure in one hourly point of `/stats`: error rates in percent, tokens per call. */
export function pointValue(measure: Anomaly['measure'], p: RequestPoint): number | null {
  switch (measure) {
    case 'requests':
      return p.requests;
    case 'cost':
      return p.cost_usd;
    case 'error_rate':
      return p.requests > 0 ? p.error_rate * 100 : null;
    case 'latency_p95':
      return p.latency_p95_ms;
    case 'tokens_per_request':
      return p.requests > 0 ? p.total_tokens / p.requests : null;
  }
}

/** The series chart's unit: the evidence chart's, but error rates in percent on the axis. */
export const seriesUnit = (measure: Anomaly['measure']): ChartUnit =>
  measure === 'error_rate' ? 'percent' : chartUnit(measure);
