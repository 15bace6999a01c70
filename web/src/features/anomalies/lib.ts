import type { Schema } from '../../api/types';
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
