/**
 * The pieces of the proxy benchmarks (bench/proxy.ts, bench/security.ts): a fake OpenAI upstream
 * and a bare proxy as child processes, the compiled gateway started against a fresh database,
 * open-loop fixed-rate load with every response's exact time, /proc readings.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Pool, request } from 'undici';
import { api, seedTenant, type SeededTenant } from '../test/helpers/auth';
import { freePort, waitForPort } from '../src/util/net';

export const ROOT = path.resolve(__dirname, '..');
export const BUILD = path.join(ROOT, '.data', 'bench-build');
const NODE = process.execPath;
export const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/** The fake provider: a fixed chat completion, and an SSE stream whose first event is immediate. */
export const UPSTREAM_SRC = `
const http = require('node:http');
const body = JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1700000000,
  model: 'gpt-4o-mini',
  choices: [{ index: 0,
    message: { role: 'assistant', content: 'Benchmarks are a kind of truth, told at a fixed rate.' },
    finish_reason: 'stop' }],
  usage: { prompt_tokens: 24, completion_tokens: 12, total_tokens: 36 } });
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url.includes('stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const delta = (content) => ({ model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content } }] });
      res.write('data: ' + JSON.stringify(delta('first')) + '\\n\\n');
      let n = 0;
      const t = setInterval(() => {
        if (++n < 5) return res.write('data: ' + JSON.stringify(delta(' more')) + '\\n\\n');
        clearInterval(t);
        const usage = { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 };
        res.write('data: ' + JSON.stringify({ model: 'gpt-4o-mini', choices: [], usage }) + '\\n\\n');
        res.end('data: [DONE]\\n\\n');
      }, 10);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(Number(process.argv[1]), '127.0.0.1', () => process.send && process.send('ready'));
`;

/** Reference floor: the least a Node proxy can do (raw http server + undici, no framework, no logging). */
export const BARE_PROXY_SRC = `
const http = require('node:http');
const { request, Agent } = require('undici');
const [port, upstream] = [Number(process.argv[1]), process.argv[2]];
const agent = new Agent({ keepAliveTimeout: 30000 });
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const r = await request(upstream + req.url, { method: req.method, headers: { 'content-type': 'application/json' },
      body: Buffer.concat(chunks), dispatcher: agent });
    const h = { 'content-type': r.headers['content-type'] };
    if (r.headers['content-length']) h['content-length'] = r.headers['content-length'];
    res.writeHead(r.statusCode, h);
    if (!r.headers['content-length']) res.flushHeaders();
    r.body.on('data', (c) => res.write(c));
    r.body.on('end', () => res.end());
  });
}).listen(port, '127.0.0.1');
`;

export const REQUEST_BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    {
      role: 'user',
      content: 'Say something true about benchmarks. My key is sk-proj-benchmarkSecret0123456789 (mask me).',
    },
  ],
});

/** The gateway's V8 heap and external memory (MB), from its /metrics. */
export async function heapMb(url: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
  const text = await (await request(`${url}/metrics`)).body.text();
  const v = (name: string) =>
    Number(new RegExp(`^gateway_nodejs_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 1048576;
  return {
    heapUsed: v('heap_size_used_bytes'),
    heapTotal: v('heap_size_total_bytes'),
    external: v('external_memory_bytes'),
  };
}

export function rssMb(pid: number): { rss: number; hwm: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** User+system CPU time of a process in ms (from /proc, 100 Hz ticks). */
export function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

export function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface RunResult {
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  non2xx: number;
  errors: number;
  count: number;
}

/**
 * Open-loop load: call i is sent at start + i / rate whether or not earlier calls returned, on a pool
 * large enough that none waits for another; latency runs from each send. (autocannon's `overallRate`,
 * used before, sent each connection's per-second quota in one burst at the top of every second.)
 */
export async function load(
  url: string,
  rate: number,
  seconds: number,
  headers: Record<string, string>,
  body: string = REQUEST_BODY,
): Promise<RunResult> {
  const samples: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: Math.max(16, Math.ceil(rate / 20)), keepAliveTimeout: 30_000 });
  const sendHeaders = { 'content-type': 'application/json', ...headers };
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const sentAt = performance.now();
    const p = pool
      .request({ path: target.pathname + target.search, method: 'POST', headers: sendHeaders, body })
      .then(async (r) => {
        await r.body.dump();
        if (r.statusCode >= 200 && r.statusCode < 300) samples.push(performance.now() - sentAt);
        else non2xx++;
      })
      .catch(() => void errors++)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      for (; sent < due; sent++) send();
      if (sent >= total) return done();
      setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  await pool.close();
  samples.sort((a, b) => a - b);
  return {
    p50: pct(samples, 50),
    p95: pct(samples, 95),
    p99: pct(samples, 99),
    rps: samples.length / seconds,
    non2xx,
    errors,
    count: samples.length,
  };
}

/**
 * Streaming time to first byte of each target, `rounds` calls each, taken in turn (direct, bare,
 * each gateway, then again), so that the machine's drift over the measurement (CPU idle states,
 * other load) falls on every target alike instead of on whichever ran last.
 */
export async function ttfb(
  targets: { url: string; headers: Record<string, string> }[],
  rounds: number,
): Promise<{ p50: number; p99: number }[]> {
  const times = targets.map(() => [] as number[]);
  const body = JSON.stringify({
    model: 'gpt-4o-mini',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'hi' }],
  });
  for (let i = 0; i < rounds; i++)
    for (const [k, t] of targets.entries()) {
      const t0 = performance.now();
      const res = await request(t.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...t.headers },
        body,
      });
      let first = 0;
      for await (const _chunk of res.body) if (!first) first = performance.now() - t0;
      times[k]!.push(first);
    }
  return times.map((ts) => {
    ts.sort((a, b) => a - b);
    return { p50: pct(ts, 50), p99: pct(ts, 99) };
  });
}

export function startChild(args: string[], env: Record<string, string>, name: string, ipc = false): ChildProcess {
  const child = spawn(NODE, args, {
    env: { ...process.env, ...env },
    stdio: ipc ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'inherit', 'inherit'],
  });
  child.on('exit', (code, sig) => {
    if (code !== null && code !== 0) log(`${name} exited with ${code ?? sig}`);
  });
  return child;
}

/** Compiles the gateway into .data/bench-build (BENCH_SKIP_BUILD=1 reuses it). */
export function buildGateway(): void {
  if (process.env.BENCH_SKIP_BUILD) return;
  log('compiling the gateway (tsc) into .data/bench-build');
  execFileSync(
    NODE,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD],
    { cwd: ROOT, stdio: 'inherit' },
  );
}

/** The fake upstream in its own process; resolves to its base URL once it listens. */
export async function startUpstream(children: ChildProcess[]): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = startChild(['-e', UPSTREAM_SRC, String(port)], {}, 'upstream');
  children.push(child);
  await waitForPort('127.0.0.1', port, 10_000);
  return { url: `http://127.0.0.1:${port}`, child };
}

export interface Gateway {
  url: string;
  child: ChildProcess;
  tenant: SeededTenant;
  /** Authorization header of the tenant's full key. */
  auth: Record<string, string>;
}

/**
 * The compiled gateway (api role, production mode) on the database, with a tenant whose OpenAI key points at the
 * upstream.
 */
export async function startGateway(
  children: ChildProcess[],
  dbUrl: string,
  upstream: string,
  flags: string[] = [],
  main: string = path.join(BUILD, 'src/main.js'),
  env: Record<string, string> = {},
): Promise<Gateway> {
  const port = await freePort();
  const child = startChild(
    [...flags, main, 'api'],
    {
      ...env,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
      MASTER_KEY: randomBytes(32).toString('hex'),
      PROVIDER_OPENAI_BASE_URL: upstream,
      TEMPORAL_ADDRESS: '127.0.0.1:1', // not needed by the proxy; the client connects lazily
      NODE_ENV: 'production',
    },
    'gateway',
  );
  children.push(child);
  await waitForPort('127.0.0.1', port, 30_000);
  const url = `http://127.0.0.1:${port}`;
  const tenant = await seedTenant({ url });
  const pk = await api({ url }, 'PUT', '/api/v1/provider-keys', {
    token: tenant.admin.token,
    orgId: tenant.orgId,
    body: { project_id: tenant.projectId, provider: 'openai', api_key: 'sk-bench-upstream-key-000000' },
  });
  if (pk.status >= 300) throw new Error(`provider key: ${pk.status} ${JSON.stringify(pk.body)}`);
  return { url, child, tenant, auth: { authorization: `Bearer ${tenant.fullKey}` } };
}
