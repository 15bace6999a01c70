/**
 * Proxy overhead benchmark: `npm run bench:proxy`.
 *
 * A fake OpenAI upstream runs in its own process on loopback; the gateway (compiled, `api`
 * role, full body logging, request log written to a fresh PostgreSQL database) runs in another.
 * The same fixed-rate load (autocannon) goes straight to the upstream and then through the
 * gateway at 500, 1,000 and 2,000 req/s; the table shows the latency the gateway adds at p50,
 * p95 and p99 (from every response's exact time), the throughput achieved, and the gateway's
 * RSS. Then time-to-first-byte of a streamed answer, direct vs through the gateway, and a check
 * that every proxied call was logged.
 *
 * Env: BENCH_SECONDS (per run, default 10), BENCH_RATES (default 500,1000,2000),
 * BENCH_PG_URL (default the local server), BENCH_SKIP_BUILD=1 to reuse .data/bench-build,
 * BENCH_GATEWAY_NODE_FLAGS (e.g. "--max-semi-space-size=4"), BENCH_PROFILE=1 (CPU profile of the gateway).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb, migrateLatest } from '../src/db/knex';
import { freePort, waitForPort } from '../src/util/net';
import { api, seedTenant } from '../test/helpers/auth';

const ROOT = path.resolve(__dirname, '..');
const BUILD = path.join(ROOT, '.data', 'bench-build');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATES = (process.env.BENCH_RATES ?? '500,1000,2000').split(',').map(Number);
const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NODE = process.execPath;

const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/** The fake provider: a fixed chat completion, and an SSE stream whose first event is immediate. */
const UPSTREAM_SRC = `
const http = require('node:http');
const body = JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1700000000, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Benchmarks are a kind of truth, told at a fixed rate.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 24, completion_tokens: 12, total_tokens: 36 } });
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url.includes('stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ' + JSON.stringify({ model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'first' } }] }) + '\\n\\n');
      let n = 0;
      const t = setInterval(() => {
        if (++n < 5) return res.write('data: ' + JSON.stringify({ model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: ' more' } }] }) + '\\n\\n');
        clearInterval(t);
        res.write('data: ' + JSON.stringify({ model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } }) + '\\n\\n');
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
const BARE_PROXY_SRC = `
const http = require('node:http');
const { request, Agent } = require('undici');
const [port, upstream] = [Number(process.argv[1]), process.argv[2]];
const agent = new Agent({ keepAliveTimeout: 30000 });
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const r = await request(upstream + req.url, { method: req.method, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks), dispatcher: agent });
    res.writeHead(r.statusCode, { 'content-type': r.headers['content-type'], 'content-length': r.headers['content-length'] });
    r.body.on('data', (c) => res.write(c));
    r.body.on('end', () => res.end());
  });
}).listen(port, '127.0.0.1');
`;

const REQUEST_BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'Say something true about benchmarks. My key is sk-proj-benchmarkSecret0123456789 (mask me).' },
  ],
});

function rssMb(pid: number): { rss: number; hwm: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** User+system CPU time of a process in ms (from /proc, 100 Hz ticks). */
function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

interface RunResult {
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  non2xx: number;
  errors: number;
  count: number;
}

async function load(url: string, rate: number, seconds: number, headers: Record<string, string>): Promise<RunResult> {
  const samples: number[] = [];
  let non2xx = 0;
  const connections = Math.max(10, Math.ceil(rate / 50));
  const inst = autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: REQUEST_BODY,
    connections,
    overallRate: rate,
    duration: seconds,
  });
  (inst as unknown as { on(e: string, f: (...a: any[]) => void): void }).on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) samples.push(ms);
    else non2xx++;
  });
  const res = await inst;
  samples.sort((a, b) => a - b);
  return {
    p50: pct(samples, 50),
    p95: pct(samples, 95),
    p99: pct(samples, 99),
    rps: samples.length / seconds,
    non2xx,
    errors: res.errors + res.timeouts,
    count: samples.length,
  };
}

async function ttfb(url: string, headers: Record<string, string>, n: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] }) });
    let first = 0;
    for await (const _chunk of res.body) {
      if (!first) first = performance.now() - t0;
    }
    times.push(first);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99) };
}

function startChild(args: string[], env: Record<string, string>, name: string, ipc = false): ChildProcess {
  const child = spawn(NODE, args, { env: { ...process.env, ...env }, stdio: ipc ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, sig) => {
    if (code !== null && code !== 0) log(`${name} exited with ${code ?? sig}`);
  });
  return child;
}

async function main() {
  if (!process.env.BENCH_SKIP_BUILD) {
    log('compiling the gateway (tsc) into .data/bench-build');
    execFileSync(NODE, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD], { cwd: ROOT, stdio: 'inherit' });
  }
  const dbName = `gw_bench_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, dbName);
  const dbUrl = withDatabase(PG, dbName);
  const db = createDb(dbUrl, 2);
  const children: ChildProcess[] = [];
  try {
    await migrateLatest(db);
    const upPort = await freePort();
    const up = startChild(['-e', UPSTREAM_SRC, String(upPort)], {}, 'upstream');
    children.push(up);
    await waitForPort('127.0.0.1', upPort, 10_000);
    const upstream = `http://127.0.0.1:${upPort}`;
    const barePort = await freePort();
    const bare = startChild(['-e', BARE_PROXY_SRC, String(barePort), upstream], {}, 'bare proxy');
    children.push(bare);
    await waitForPort('127.0.0.1', barePort, 10_000);
    const bareUrl = `http://127.0.0.1:${barePort}/v1/chat/completions`;

    const gwPort = await freePort();
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, '.data', 'bench-prof')}`] : [];
    const nodeFlags = (process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const gw = startChild([...profile, ...nodeFlags, path.join(BUILD, 'src/main.js'), 'api'], {
      DATABASE_URL: dbUrl,
      PORT: String(gwPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
      MASTER_KEY: randomBytes(32).toString('hex'),
      PROVIDER_OPENAI_BASE_URL: upstream,
      TEMPORAL_ADDRESS: '127.0.0.1:1', // not needed by the proxy; the client connects lazily
      NODE_ENV: 'production',
    }, 'gateway');
    children.push(gw);
    await waitForPort('127.0.0.1', gwPort, 30_000);
    const gateway = `http://127.0.0.1:${gwPort}`;
    const tenant = await seedTenant({ url: gateway });
    const pk = await api({ url: gateway }, 'PUT', '/api/v1/provider-keys', {
      token: tenant.admin.token,
      orgId: tenant.orgId,
      body: { project_id: tenant.projectId, provider: 'openai', api_key: 'sk-bench-upstream-key-000000' },
    });
    if (pk.status >= 300) throw new Error(`provider key: ${pk.status} ${JSON.stringify(pk.body)}`);
    const auth = { authorization: `Bearer ${tenant.fullKey}` };
    const directUrl = `${upstream}/v1/chat/completions`;
    const gwUrl = `${gateway}/proxy/openai/v1/chat/completions`;

    if (process.env.BENCH_SERVE) {
      // Keep the stack up for manual probing (profilers, curl) until Ctrl-C.
      log(`serving: gateway ${gwUrl} key ${tenant.fullKey} direct ${directUrl} gateway pid ${gw.pid}`);
      await new Promise((r) => process.once('SIGINT', r));
      return;
    }
    log(`rss after start: ${rssMb(gw.pid!).rss.toFixed(1)} MB; warming up`);
    await load(directUrl, 500, 2, {});
    const warm = await load(gwUrl, 500, 3, { ...auth, 'x-service-log-body': 'full' });

    const rows: string[] = [];
    const floorRows: string[] = [];
    let proxied = 0;
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(gw.pid!).rss)), 200);
    for (const rate of RATES) {
      log(`${rate} req/s: direct`);
      const up0 = cpuMs(up.pid!);
      const d = await load(directUrl, rate, SECONDS, {});
      const upCpuPerReq = (cpuMs(up.pid!) - up0) / Math.max(1, d.count + d.non2xx);
      log(`${rate} req/s: bare undici proxy (floor)`);
      const b0 = cpuMs(bare.pid!);
      const b = await load(bareUrl, rate, SECONDS, {});
      const bareCpuPerReq = (cpuMs(bare.pid!) - b0) / Math.max(1, b.count + b.non2xx);
      log(`${rate} req/s: through the gateway`);
      const cpu0 = cpuMs(gw.pid!);
      const g = await load(gwUrl, rate, SECONDS, { ...auth, 'x-service-log-body': 'full' });
      const cpuPerReq = (cpuMs(gw.pid!) - cpu0) / Math.max(1, g.count + g.non2xx);
      proxied += g.count + g.non2xx;
      const rss = rssMb(gw.pid!).rss;
      const f = (x: number) => x.toFixed(2).padStart(7);
      rows.push(
        `| ${String(rate).padStart(5)} | ${f(d.p50)} | ${f(g.p50)} | ${f(g.p50 - d.p50)} | ${f(g.p95 - d.p95)} | ${f(g.p99 - d.p99)} | ${d.rps.toFixed(0).padStart(6)} | ${g.rps.toFixed(0).padStart(6)} | ${String(g.non2xx + g.errors).padStart(6)} | ${upCpuPerReq.toFixed(2).padStart(6)} | ${cpuPerReq.toFixed(2).padStart(6)} | ${rss.toFixed(0).padStart(7)} |`,
      );
      floorRows.push(
        `| ${String(rate).padStart(5)} | ${f(b.p50 - d.p50)} | ${f(b.p95 - d.p95)} | ${f(b.p99 - d.p99)} | ${b.rps.toFixed(0).padStart(6)} | ${bareCpuPerReq.toFixed(2).padStart(6)} |`,
      );
      log(rows[rows.length - 1]!);
    }
    clearInterval(sampler);

    log('streaming time-to-first-byte (200 sequential calls each)');
    const td = await ttfb(`${upstream}/v1/chat/completions?stream`, {}, 200);
    const tg = await ttfb(`${gateway}/proxy/openai/v1/chat/completions?stream`, auth, 200);
    proxied += 200;

    // Every proxied call must be in the log once the batch writer catches up.
    // autocannon may stop with calls in flight (proxied, not counted), so "at least" is the check.
    const expected = proxied + warm.count + warm.non2xx;
    const deadline = Date.now() + 30_000;
    let logged = 0;
    for (let last = -1; Date.now() < deadline; ) {
      logged = Number((await db('requests').count({ c: '*' }))[0]!.c);
      if (logged >= expected && logged === last) break;
      last = logged;
      await new Promise((r) => setTimeout(r, 300));
    }
    const inside = (
      await db.raw(
        `select percentile_cont(0.5) within group (order by latency_ms) as p50, percentile_cont(0.99) within group (order by latency_ms) as p99,
                percentile_cont(0.5) within group (order by ttfb_ms) as ttfb50 from requests where not streamed`,
      )
    ).rows[0];
    const masked = await db('requests').whereRaw(`request_body like '%benchmarkSecret%'`).count({ c: '*' });
    const hwm = rssMb(gw.pid!).hwm;

    const out = [
      '',
      `Proxy overhead, fixed-rate load for ${SECONDS}s per run, full body logging (ms; added = gateway - direct at the same percentile)`,
      '',
      '|  rate | direct p50 | gw p50 | added p50 | added p95 | added p99 | direct rps | gw rps | errors | upstream CPU ms/req | gw CPU ms/req | gw RSS MB |',
      '|------:|-------:|-------:|--------:|--------:|--------:|-------:|-------:|-------:|------:|------:|--------:|',
      ...rows,
      '',
      'Reference floor on this machine: a bare Node proxy (http server + undici, no framework, auth, logging) under the same load',
      '',
      '|  rate | added p50 | added p95 | added p99 | rps | CPU ms/req |',
      '|------:|--------:|--------:|--------:|-------:|------:|',
      ...floorRows,
      '',
      `Streaming TTFB: direct p50 ${td.p50.toFixed(2)} ms / p99 ${td.p99.toFixed(2)} ms; via gateway p50 ${tg.p50.toFixed(2)} ms / p99 ${tg.p99.toFixed(2)} ms (added p50 ${(tg.p50 - td.p50).toFixed(2)} ms)`,
      `Inside the gateway (handler start to last byte, whole ms, all runs): p50 ${inside.p50} ms, p99 ${inside.p99} ms; to upstream headers p50 ${inside.ttfb50} ms`,
      `Gateway RSS: peak sampled ${peakRss.toFixed(0)} MB, high-water mark ${hwm.toFixed(0)} MB`,
      `Request log: ${logged} rows for at least ${expected} proxied calls; unmasked key in stored bodies: ${masked[0]!.c}`,
      `Machine load average during the run: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (${os.cpus().length} CPUs; upstream, gateway, PostgreSQL and the load generator share them)`,
      '',
    ].join('\n');
    process.stdout.write(out);
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'bench/results', `proxy-${new Date().toISOString().replace(/[:.]/g, '-')}.md`), out);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, process.env.BENCH_PROFILE ? 5000 : 500));
    await db.destroy();
    await dropDatabase(PG, dbName).catch(() => undefined);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
