import { Paper, Text, useComputedColorScheme } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { axis, type Unit } from '../lib/format';
import { SERIES } from '../theme';

export interface Series {
  label: string;
  values: (number | null)[];
  /** A colour of its own (default: the palette in order), and dashes for reference lines. */
  color?: string;
  dash?: number[];
}

/**
 * A time series (uPlot: small and fast on thousands of points). `x` are ISO bucket starts; the
 * y axis, the legend and the caption carry the unit, so `$0.000029` never reads as `0`.
 */
export function Chart({
  title,
  unit,
  x,
  series,
  height = 200,
}: {
  title: string;
  unit: Unit;
  x: string[];
  series: Series[];
  height?: number;
}) {
  const el = useRef<HTMLDivElement>(null);
  const dark = useComputedColorScheme('light') === 'dark';
  useEffect(() => {
    const box = el.current;
    if (!box) return;
    const ink = dark ? '#c9c9c9' : '#495057';
    const grid = dark ? 'rgba(255,255,255,.08)' : 'rgba(0,0,0,.07)';
    // The legend shows a value only under the cursor; the label alone otherwise.
    const fmt = (v: number | null) => (v === null ? '' : axis(unit, v));
    const plot = new uPlot(
      {
        width: box.clientWidth || 600,
        height,
        legend: { show: true },
        cursor: { points: { size: 6 } },
        axes: [
          // Time labels need room: at least 80 px between ticks, so `10:25pm10:30pm` never runs together.
          { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid }, space: 80 },
          {
            stroke: ink,
            grid: { stroke: grid },
            ticks: { stroke: grid },
            size: 72,
            values: (_u, ticks) => ticks.map((t) => axis(unit, t)),
          },
        ],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: s.color ?? SERIES[i % SERIES.length],
            width: 2,
            ...(s.dash ? { dash: s.dash } : {}),
            value: (_u: uPlot, v: number | null) => fmt(v),
            // A sparse series (a few busy hours) draws its points, or a lone value would not show at all.
            points: { show: s.values.filter((v) => v !== null).length <= 48, size: 6 },
          })),
        ],
      },
      [x.map((b) => Date.parse(b) / 1000), ...series.map((s) => s.values)],
      box,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: box.clientWidth || 600, height }));
    ro.observe(box);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [x, series, height, unit, dark]);
  return (
    <Paper withBorder p="md" component="figure" className="chart" m={0}>
      <Text component="figcaption" fw={600} size="sm" mb="xs">
        {title}
      </Text>
      <div ref={el} role="img" aria-label={`${title} over time`} />
    </Paper>
  );
}
