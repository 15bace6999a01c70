/**
 * The top frames of a V8 CPU profile (`--cpu-prof`), as shares of the busy time: idle and start-up
 * (module loading) are left out, so what remains is the work of serving. Used by bench:proxy
 * (BENCH_PROFILE=1) to print each build's flame graph in a few lines.
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const short = (url: string) =>
  url
    .replace(/.*node_modules\//, '')
    .replace(/.*\/(src|activities|workflows)\//, '$1/')
    .replace(/^node:internal\//, 'node:');

export function topFrames(
  file: string,
  n = 12,
): { busyMs: number; self: [string, number][]; inclusive: [string, number][] } {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const time = new Map<number, number>();
  p.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const key = (x: Node) =>
    `${x.callFrame.functionName || '(anonymous)'} ${short(x.callFrame.url)}:${x.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let busy = 0;
  for (const [id, t] of time) {
    const stack: Node[] = [];
    for (let c: number | undefined = id; c !== undefined; c = parent.get(c)) stack.push(byId.get(c)!);
    const top = stack[0]!;
    if (top.callFrame.functionName === '(idle)' || top.callFrame.functionName === '(program)') continue;
    if (stack.some((x) => /cjs\/loader|run_main_module|esm\//.test(x.callFrame.url))) continue;
    busy += t;
    self.set(key(top), (self.get(key(top)) ?? 0) + t);
    for (const k of new Set(stack.map(key))) incl.set(k, (incl.get(k) ?? 0) + t);
  }
  const rank = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => !k.startsWith('(root)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => [k, (100 * v) / busy] as [string, number]);
  return { busyMs: busy / 1000, self: rank(self), inclusive: rank(incl) };
}

/** Markdown lines: the top self-time frames of each profile. */
export function profileReport(label: string, file: string): string[] {
  const { busyMs, self } = topFrames(file);
  return [
    `CPU profile of ${label}: ${busyMs.toFixed(0)} ms busy; top frames by self time (% of busy)`,
    '',
    ...self.map(([k, v]) => `- ${v.toFixed(1)}% \`${k}\``),
    '',
  ];
}
