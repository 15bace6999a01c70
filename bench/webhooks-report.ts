/** bench:webhooks' tables: one run's results and how both runs print side by side. */
import os from 'node:os';

/** One run's results (one child process), printed side by side with the other run's. */
export interface RunResult {
  label: string;
  rev: string;
  rows: string[][];
  stageRows: string[][];
  cpuRows: string[][];
  historyEvents: number | null;
  loadavg: string;
}

/** The p-th percentile of sorted samples (nearest rank), NaN when there are none. */
export const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

function table(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padStart(widths[i]!)).join(' | ') + ' |';
  console.log(`\n${title}`);
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
}

export function print(results: RunResult[], seconds: number): void {
  const multi = results.length > 1;
  const tag = (r: RunResult, cells: string[]) => (multi ? [`${r.label} (${r.rev})`, ...cells] : cells);
  const head = (h: string[]) => (multi ? ['build', ...h] : h);
  table(
    `Webhook delivery (1 webhook, ${seconds} s per rate, ${os.cpus().length} cores): ` +
      'event → first attempt latency at the receiver',
    head(['target ev/s', 'emitted ev/s', 'delivered/s', 'received', 'p50 ms', 'p95 ms', 'p99 ms', 'all delivered']),
    results.flatMap((r) => r.rows.map((row) => tag(r, row))),
  );
  table(
    'Median time per stage (ms): event → delivery record (dispatcher), ' +
      'record → first attempt begins (start + first workflow task), attempt duration',
    head(['target ev/s', 'emit→record', 'record→first attempt', 'attempt']),
    results.flatMap((r) => r.stageRows.map((row) => tag(r, row))),
  );
  table(
    'CPU milliseconds per delivery, by process (from emit start until all delivered; /proc utime+stime)',
    head([
      'target ev/s',
      'service',
      'temporal server',
      'postgres (bench db)',
      'sum',
      'postgres (all)',
      'receiver',
      'whole machine',
    ]),
    results.flatMap((r) => r.cpuRows.map((row) => tag(r, row))),
  );
  console.log('');
  for (const r of results)
    console.log(
      `${r.label} (${r.rev}): ${r.historyEvents ?? '?'} history events per delivered workflow; ` +
        `load average at the end ${r.loadavg}`,
    );
}
