import { Text } from '@mantine/core';
import { useMemo } from 'react';
import { Chart } from '../../../components/Chart';
import { QueryState } from '../../../components/QueryState';
import type { RequestStats } from '../../../api/stats';
import { useAnomalySeries } from '../hooks/useAnomalies';
import { measureName, minute, pointValue, seriesUnit, value, where, windowHours, type Anomaly } from '../lib';

/** The series drawn, its busiest hour (read out, since a canvas is not), and the anomaly's window. */
function Drawn({ a, stats }: { a: Anomaly; stats: RequestStats }) {
  const { label, x, series, peak, marks } = useMemo(() => {
    const values = stats.series.map((p) => pointValue(a.measure, p));
    let peak: { at: string; v: number } | null = null;
    for (const [i, v] of values.entries())
      if (v !== null && (peak === null || v > peak.v)) peak = { at: stats.series[i]!.bucket, v };
    const name = measureName(a.measure);
    const label = `${name.charAt(0).toUpperCase()}${name.slice(1)} per hour`;
    const window = `${minute(a.window.start)} – ${minute(a.window.end)}`;
    return {
      x: stats.series.map((p) => p.bucket),
      label,
      series: [{ label, values }],
      peak,
      marks: [{ ...windowHours(a), label: `The hours of the anomaly's window (${window})` }],
    };
  }, [a, stats]);
  const shown = (v: number) => value(a.measure, a.measure === 'error_rate' ? v / 100 : v);
  return (
    <Chart
      title={`${label}, ${where(a)}: 24 h before to 6 h after`}
      unit={seriesUnit(a.measure)}
      x={x}
      series={series}
      marks={marks}
      height={200}
    >
      <Text size="sm" mt={4} data-testid="anomaly-series-peak">
        {peak
          ? `Busiest hour shown: ${shown(peak.v)}, the hour from ${minute(peak.at)}.`
          : 'No calls in these hours for this dimension.'}
      </Text>
    </Chart>
  );
}

/**
 * The anomaly's own measure for its dimension (its model, user or the whole project) hour by hour,
 * from 24 hours before its detection to 6 hours after, with its window shaded: what led up to it
 * and whether it has passed.
 */
export function AnomalySeries({ a }: { a: Anomaly }) {
  const stats = useAnomalySeries(a);
  return (
    <QueryState query={stats} what="the hourly series">
      {(s) => <Drawn a={a} stats={s} />}
    </QueryState>
  );
}
