/**
 * Trace ingest throughput: `npm run bench:ingest`.
 *
 * The gateway (`api` role, started with startRuntime on a fresh, migrated PostgreSQL database)
 * runs in a child process so the load generator does not share its event loop. Senders post
 * pre-encoded OTLP/HTTP protobuf batches (spans of 20-span agent traces: a root, LLM spans with
 * gen_ai attributes and content, tool and retrieval spans) to POST /v1/traces, each sender
 * waiting for its answer before sending the next (OTLP exporters do the same). Responses come
 * after the commit, so "acknowledged" spans are persisted spans; the table shows spans per second
 * (counted in the database afterwards), requests per second and request latency percentiles.
 *
 * Env: BENCH_SPANS (spans per scenario, default 150000), BENCH_SCENARIOS (e.g. "100x8,1000x4"),
 * BENCH_PG_URL (default the local server).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { loadConfig } from '../src/config';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb } from '../src/db/knex';
import { decodeResponse } from '../src/ingest/otlp/decode';
import { createLogger } from '../src/logger';
import { startRuntime } from '../src/runtime';
import { seedTenant, TEST_JWT_SECRET } from '../test/helpers/auth';
import { payloads, SPANS_PER_TRACE } from './ingest-data';

const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SPANS = Number(process.env.BENCH_SPANS ?? 150_000);
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

interface Scenario {
  label: string;
  batch: number;
  senders: number;
  gzip?: boolean;
}

const DEFAULT_SCENARIOS: Scenario[] = [
  { label: 'OTLP protobuf', batch: 100, senders: 8 },
  { label: 'OTLP protobuf', batch: 500, senders: 4 },
  { label: 'OTLP protobuf', batch: 1000, senders: 4 },
  { label: 'OTLP protobuf', batch: 1000, senders: 8 },
  { label: 'OTLP protobuf gzip', batch: 1000, senders: 4, gzip: true },
];

function scenarios(): Scenario[] {
  const spec = process.env.BENCH_SCENARIOS;
  if (!spec) return DEFAULT_SCENARIOS;
  return spec.split(',').map((s) => {
    const [batch, senders, gz] = s.split(/x|:/);
    return {
      label: gz ? 'OTLP protobuf gzip' : 'OTLP protobuf',
      batch: Number(batch),
      senders: Number(senders),
      gzip: !!gz,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Server mode: the child process.

async function serve() {
  const databaseUrl = process.env.BENCH_DATABASE_URL!;
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    MASTER_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl,
  });
  const runtime = await startRuntime(config, {
    role: 'api',
    databaseUrl,
    migrate: true,
    port: 0,
    logger: createLogger('warn'),
  });
  process.stdout.write(`${JSON.stringify({ url: runtime.api!.url })}\n`);
  process.on('SIGTERM', () => void runtime.stop().then(() => process.exit(0)));
}

/** CPU seconds (user + system) a process used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}
const CLK_TCK = 100;

async function backendPids(db: ReturnType<typeof createDb>, dbName: string): Promise<number[]> {
  const { rows } = await db.raw('select pid from pg_stat_activity where datname = ? and pid <> pg_backend_pid()', [
    dbName,
  ]);
  return rows.map((r: { pid: number }) => r.pid);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function run() {
  const dbName = `gw_bench_ingest_${process.pid}`;
  await dropDatabase(PG, dbName);
  await createDatabase(PG, dbName);
  const databaseUrl = withDatabase(PG, dbName);
  const db = createDb(databaseUrl, 2);
  const serverFlags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean); // e.g. --cpu-prof
  const child = spawn(process.execPath, [...serverFlags, ...process.execArgv, __filename, 'server'], {
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        const line = buf.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line).url as string);
      });
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    log(`server at ${url}, database ${dbName}`);
    const tenant = await seedTenant({ url });
    const rows: string[][] = [];
    // BENCH_SPAN_ROLLUPS=compare: each scenario with the span rollups' triggers off, then on (their write cost).
    const compare = process.env.BENCH_SPAN_ROLLUPS === 'compare';
    const runs = scenarios().flatMap((sc) =>
      compare ? [false, true].map((rollups) => ({ ...sc, rollups })) : [{ ...sc, rollups: true }],
    );
    for (const sc of runs) {
      const toggle = sc.rollups ? 'enable' : 'disable';
      for (const t of ['insert', 'update', 'delete'])
        await db.raw(`alter table spans ${toggle} trigger spans_rollup_${t}`);
      log(`encoding ${SPANS} spans in batches of ${sc.batch}${sc.gzip ? ' (gzip)' : ''}`);
      const bodies = payloads(SPANS, sc.batch, !!sc.gzip);
      const spanCount = (await db('spans').count<{ c: number }[]>('* as c'))[0]!.c;
      const pool = new Pool(url, { connections: sc.senders, pipelining: 1 });
      const latencies: number[] = [];
      let next = 0;
      let rejected = 0;
      let failed = 0;
      const headers = {
        authorization: `Bearer ${tenant.fullKey}`,
        'content-type': 'application/x-protobuf',
        ...(sc.gzip ? { 'content-encoding': 'gzip' } : {}),
      };
      log(`sending ${bodies.length} requests with ${sc.senders} senders`);
      // CPU used by the gateway and by its PostgreSQL backends (the pool keeps them for the run)
      const cpuBefore = cpuSeconds(child.pid!);
      const pgCpuBefore = new Map<number, number>();
      const load = os.loadavg()[0]!;
      const started = performance.now();
      const sampler = setInterval(() => {
        void backendPids(db, dbName).then((pids) =>
          pids.forEach((p) => pgCpuBefore.has(p) || pgCpuBefore.set(p, cpuSeconds(p))),
        );
      }, 200);
      for (const p of await backendPids(db, dbName)) pgCpuBefore.set(p, cpuSeconds(p));
      await Promise.all(
        Array.from({ length: sc.senders }, async () => {
          for (;;) {
            const i = next++;
            if (i >= bodies.length) return;
            const t = performance.now();
            const res = await pool.request({ method: 'POST', path: '/v1/traces', headers, body: bodies[i] });
            const body = Buffer.from(await res.body.arrayBuffer());
            latencies.push(performance.now() - t);
            if (res.statusCode !== 200) failed++;
            else if (body.length) rejected += Number(decodeResponse(body).partialSuccess?.rejectedSpans ?? 0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      const nodeCpu = cpuSeconds(child.pid!) - cpuBefore;
      let pgCpu = 0;
      for (const [p, before] of pgCpuBefore) pgCpu += Math.max(0, cpuSeconds(p) - before);
      await pool.close();
      const stored = (await db('spans').count<{ c: number }[]>('* as c'))[0]!.c - spanCount;
      latencies.sort((a, b) => a - b);
      rows.push([
        `${sc.label}, ${sc.batch} spans/request, ${sc.senders} senders` +
          (compare ? `, span rollups ${sc.rollups ? 'on' : 'off'}` : ''),
        String(stored),
        seconds.toFixed(2),
        Math.round(stored / seconds).toLocaleString('en-US'),
        (bodies.length / seconds).toFixed(1),
        pct(latencies, 50).toFixed(1),
        pct(latencies, 95).toFixed(1),
        pct(latencies, 99).toFixed(1),
        String(failed + rejected),
        ((nodeCpu * 1e6) / stored).toFixed(0),
        ((pgCpu * 1e6) / stored).toFixed(0),
        Math.round((2 * stored) / (nodeCpu + pgCpu)).toLocaleString('en-US'),
        load.toFixed(1),
      ]);
      if (stored !== SPANS) log(`WARNING: ${SPANS} sent, ${stored} stored`);
    }
    const head = [
      'scenario',
      'spans stored',
      'seconds',
      'spans/s',
      'req/s',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'failed/rejected',
      'node µs/span',
      'pg µs/span',
      'spans/s per 2 CPU-s',
      'load before',
    ];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) =>
      `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
    process.stdout.write(
      `\nTrace ingest, durable on acknowledgement ` +
        `(${SPANS_PER_TRACE}-span agent traces, ${SPANS} spans per scenario)\n\n`,
    );
    const rule = widths.map((w, i) => (i === 0 ? ':' : '-') + '-'.repeat(w) + (i === 0 ? '-' : ':')).join('|');
    process.stdout.write(`${line(head)}\n|${rule}|\n`);
    for (const r of rows) process.stdout.write(`${line(r)}\n`);
    process.stdout.write(
      '\nnode/pg µs/span: CPU time of the gateway process and of its PostgreSQL backends per stored span. ' +
        '"spans/s per 2 CPU-s"\n' +
        '= spans stored per 2 seconds of (gateway + PostgreSQL) CPU: ' +
        'the rate two otherwise idle cores could sustain. ' +
        '"load before":\n' +
        `1-minute load average when the scenario started (other work on the machine shares the 2 cores).\n`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.destroy();
    await dropDatabase(PG, dbName);
  }
}

if (process.argv[2] === 'server') {
  serve().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  });
} else {
  run().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
