import { Group, Paper, Text, useComputedColorScheme } from '@mantine/core';
import { useEffect, useRef, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { axis, compact, type Unit } from '../lib/format';
import { SERIES } from '../theme';

export interface Series {
  label: string;
  values: (number | null)[];
  /** A colour of its own (default: the palette in order), and dashes for reference lines. */
  color?: string;
  dash?: number[];
}

/** A span of time shaded behind the series (an anomaly's window, an incident), named under the chart. */
export interface Mark {
  from: string;
  to: string;
  label: string;
}
/** Error rates and other ratios are drawn in percent (`5 %`); the other units as `axis` writes them. */
export type ChartUnit = Unit | 'percent';
const tick = (unit: ChartUnit, v: number) => (unit === 'percent' ? `${compact(v)} %` : axis(unit, v));
const MARK = { light: 'rgba(224, 49, 49, .12)', dark: 'rgba(255, 135, 135, .16)' };
const SWATCH = {
  display: 'inline-block',
  width: 12,
  height: 12,
  marginRight: 6,
  verticalAlign: -1,
  borderRadius: 2,
  border: '1px solid rgba(224, 49, 49, .5)',
};

/** uPlot hook: each mark as a band the height of the plot, under the grid and the series. */
const shade = (marks: Mark[], fill: string) => (u: uPlot) => {
  const { ctx, bbox } = u;
  ctx.save();
  ctx.fillStyle = fill;
  for (const m of marks) {
    const left = Math.max(bbox.left, u.valToPos(Date.parse(m.from) / 1000, 'x', true));
    const right = Math.min(bbox.left + bbox.width, u.valToPos(Date.parse(m.to) / 1000, 'x', true));
    if (right > left) ctx.fillRect(left, bbox.top, Math.max(right - left, 2), bbox.height);
  }
  ctx.restore();
};

const NO_MARKS: Mark[] = [];

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
  marks = NO_MARKS,
  children,
}: {
  title: string;
  unit: ChartUnit;
  x: string[];
  series: Series[];
  height?: number;
  marks?: Mark[];
  /** Read under the chart, inside its figure (what a canvas cannot say: a peak, a total). */
  children?: ReactNode;
}) {
  const el = useRef<HTMLDivElement>(null);
  const dark = useComputedColorScheme('light') === 'dark';
  useEffect(() => {
    const box = el.current;
    if (!box) return;
    const ink = dark ? '#c9c9c9' : '#495057';
    const grid = dark ? 'rgba(255,255,255,.08)' : 'rgba(0,0,0,.07)';
    // The legend shows a value only under the cursor; the label alone otherwise.
    const fmt = (v: number | null) => (v === null ? '' : tick(unit, v));
    const plot = new uPlot(
      {
        width: box.clientWidth || 600,
        height,
        legend: { show: true },
        ...(marks.length > 0 ? { hooks: { drawClear: [shade(marks, dark ? MARK.dark : MARK.light)] } } : {}),
        cursor: { points: { size: 6 } },
        axes: [
          // Time labels need room: at least 80 px between ticks, so `10:25pm10:30pm` never runs together.
          { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid }, space: 80 },
          {
            stroke: ink,
            grid: { stroke: grid },
            ticks: { stroke: grid },
            size: 72,
            values: (_u, ticks) => ticks.map((t) => tick(unit, t)),
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
  }, [x, series, height, unit, dark, marks]);
  return (
    <Paper withBorder p="md" component="figure" className="chart" m={0}>
      <Text component="figcaption" fw={600} size="sm" mb="xs">
        {title}
      </Text>
      <div ref={el} role="img" aria-label={`${title} over time`} />
      {marks.length > 0 && (
        <Group gap="md" mt={4}>
          {marks.map((m) => (
            <Text key={m.label} size="xs" c="dimmed">
              <span aria-hidden style={{ ...SWATCH, background: dark ? MARK.dark : MARK.light }} />
              {m.label}
            </Text>
          ))}
        </Group>
      )}
      {children}
    </Paper>
  );
}
