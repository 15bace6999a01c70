/** CPU accounting from /proc for the benchmarks (Linux): seconds of user + system time. */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds used so far by a process (user + system), from /proc. */
export function cpuOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(parts[11]) + Number(parts[12])) / 100;
  } catch {
    return 0;
  }
}
/** A process's start time (clock ticks since boot), to tell a pid from a later one that reused it. */
export function startTimeOf(pid: number): string {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return f.slice(f.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}
/** CPU seconds used by all postgres processes (the server forks one per connection). */
export function cpuOfPostgres(): number {
  let total = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim().startsWith('postgres')) total += cpuOf(Number(d));
    } catch {
      // gone
    }
  }
  return total;
}
/** CPU seconds used by the given processes (PostgreSQL backends of the bench database). */
export function cpuOfPids(pids: Iterable<number>): Map<number, number> {
  return new Map([...pids].map((p) => [p, cpuOf(p)]));
}
/** Whole-machine busy CPU seconds (all processes, including other people's). */
export function cpuOfMachine(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return (line[0] + line[1] + line[2] + line[5] + line[6] + line[7]) / 100;
}
