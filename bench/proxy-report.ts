/** `bench:proxy`'s side-by-side table and its soak (bench/proxy.ts). */
import { heapMb, load, log, rssMb, type Gateway, type RunResult } from './proxy-stack';

export interface Row {
  rate: number;
  label: string;
  direct: RunResult;
  run: RunResult;
  /** CPU ms per call of the proxy's process, and of PostgreSQL's backends on its behalf. */
  cpu: number;
  pgCpu?: number;
  rss?: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
}

const f = (x: number | undefined, d = 2) => (x === undefined || Number.isNaN(x) ? '' : x.toFixed(d));

export function reportTable(rows: Row[]): string[] {
  return [
    '| rate | proxy | added p50 | added p95 | added p99 | rps | errors | CPU ms/call | PostgreSQL CPU ms/call | ' +
      'RSS MB | heap used / total MB | external MB |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      [
        '',
        r.rate,
        r.label,
        f(r.run.p50 - r.direct.p50),
        f(r.run.p95 - r.direct.p95),
        f(r.run.p99 - r.direct.p99),
        r.run.rps.toFixed(0),
        r.run.non2xx + r.run.errors,
        f(r.cpu, 3),
        f(r.pgCpu, 3),
        f(r.rss, 0),
        r.heapUsed === undefined ? '' : `${f(r.heapUsed, 0)} / ${f(r.heapTotal, 0)}`,
        f(r.external, 1),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  ];
}

/**
 * Sustained load in 30-second legs, the memory read after each: growth across the legs is a leak,
 * a flat curve is a process that has found its size.
 */
export async function soak(
  gw: Gateway,
  url: string,
  headers: Record<string, string>,
  seconds: number,
  counted: (n: number) => void,
): Promise<string[]> {
  const rate = Number(process.env.BENCH_SOAK_RATE ?? 1000);
  const leg = Math.min(30, seconds);
  const lines = [
    `Soak: ${rate} req/s for ${seconds} s through "after", memory after each ${leg}-second leg`,
    '',
    '| at s | p50 ms | p99 ms | errors | RSS MB | heap used / total MB | external MB |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const pid = gw.child.pid!;
  let peak = 0;
  for (let t = leg; t <= seconds; t += leg) {
    const r = await load(url, rate, leg, headers);
    counted(r.count + r.non2xx);
    const m = await heapMb(gw.url);
    const rss = rssMb(pid).rss;
    peak = Math.max(peak, rss);
    const heap = `${f(m.heapUsed, 0)} / ${f(m.heapTotal, 0)}`;
    const errors = r.non2xx + r.errors;
    const line = `| ${t} | ${f(r.p50)} | ${f(r.p99)} | ${errors} | ${f(rss, 0)} | ${heap} | ${f(m.external, 1)} |`;
    log(`soak ${line}`);
    lines.push(line);
  }
  lines.push('', `RSS high-water mark ${f(rssMb(pid).hwm, 0)} MB, peak sampled ${f(peak, 0)} MB`, '');
  return lines;
}
