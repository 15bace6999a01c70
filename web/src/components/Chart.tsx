import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** A time series (uPlot: small and fast); `series` are [label, values] over the shared `x` (ISO buckets). */
export function Chart({ title, x, series, height = 180 }: { title: string; x: string[]; series: [string, (number | null)[]][]; height?: number }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current) return;
    const colors = ['#4f7cff', '#e0564b', '#2fa36b', '#c48a00'];
    const plot = new uPlot(
      {
        width: el.current.clientWidth || 600,
        height,
        legend: { show: true },
        axes: [{ stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,.15)' } }, { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,.15)' }, size: 60 }],
        series: [{}, ...series.map(([label], i) => ({ label, stroke: colors[i % colors.length], width: 2 }))],
      },
      [x.map((b) => Date.parse(b) / 1000), ...series.map(([, v]) => v)] as uPlot.AlignedData,
      el.current,
    );
    const resize = () => plot.setSize({ width: el.current?.clientWidth || 600, height });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [x, series, height]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={el} role="img" aria-label={`${title} over time`} />
    </figure>
  );
}
