/** The Temporal dev server of bench:webhooks (bench/webhooks.ts) and of its floor (bench/webhooks-floor.ts). */
import type { DevServer, DevServerOptions } from '../src/temporal/dev-server';

/**
 * The dev server as src/temporal/dev-server.ts starts it, plus BENCH_TEMPORAL_DYNAMIC_CONFIG
 * (comma-separated KEY=VALUE, e.g. system.enableActivityEagerExecution=true) to compare settings.
 * `start` is the build's own `startDevServer` (the before worktree's, or this tree's).
 */
export async function startBenchTemporal(
  port: number,
  log: (m: string) => void,
  start: (o: DevServerOptions) => Promise<DevServer>,
): Promise<DevServer> {
  const extra = (process.env.BENCH_TEMPORAL_DYNAMIC_CONFIG ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const dynamicConfig: Record<string, string | number | boolean> = {};
  for (const kv of extra) {
    const [k, v] = [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)];
    dynamicConfig[k] = v === 'true' ? true : v === 'false' ? false : Number.isFinite(Number(v)) ? Number(v) : v;
  }
  if (extra.length) log(`dev server with ${extra.join(' ')}`);
  return start({ port, log, dynamicConfig });
}
