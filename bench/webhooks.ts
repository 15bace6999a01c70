/**
 * Webhook delivery benchmark: `npm run bench:webhooks`.
 *
 * A Temporal dev server (in memory, headless) on a free port, a fresh PostgreSQL database, the
 * service's worker role (Temporal worker + outbox dispatcher) in this process, and an HTTPS
 * receiver (test CA, loopback only) in a child process. For each target rate, events are emitted
 * with `emitEvent` (one transaction each, like a feature would) for BENCH_SECONDS, to one
 * subscribed webhook; the table shows the emitted rate, the rate at which delivery workflows
 * completed (record `delivered`), and the event-to-first-attempt latency measured at the receiver
 * (p50/p95/p99). Bounded: each phase emits for BENCH_SECONDS and drains for at most 120 s.
 *
 * Env: BENCH_SECONDS (default 5), BENCH_RATES (default 5,25,100,300), BENCH_PG_URL,
 * BENCH_TEMPORAL_DYNAMIC_CONFIG (KEY=VALUE,... passed to the dev server).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { loadConfig } from '../src/config';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb, migrateLatest } from '../src/db/knex';
import { emitEvent } from '../src/events/outbox';
import { createLogger } from '../src/logger';
import { startRuntime } from '../src/runtime';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/util/net';
import { seedOrg, seedWebhook } from '../test/integration/webhooks/fixtures';
import { testCertificates } from '../test/helpers/https-receiver';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATES = (process.env.BENCH_RATES ?? '5,25,100,300').split(',').map(Number);
const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/** The receiver: answers 204 at once and prints `<emitted_at> <arrived_at>` per request. */
const RECEIVER_SRC = `
const https = require('node:https');
const server = https.createServer({ key: process.env.KEY, cert: process.env.CERT, keepAliveTimeout: 30000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    res.statusCode = 204;
    res.end();
    try { const b = JSON.parse(Buffer.concat(chunks)); process.stdout.write(b.request.emitted_at + ' ' + at + '\\n'); } catch {}
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
`;

/** CPU seconds used so far by a process (user + system), from /proc. */
function cpuOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const f = require('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8') as string;
    const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(parts[11]) + Number(parts[12])) / 100;
  } catch {
    return 0;
  }
}
/** CPU seconds used by all postgres processes (the server forks one per connection). */
function cpuOfPostgres(): number {
  const fs = require('node:fs');
  let total = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim().startsWith('postgres')) total += cpuOf(Number(d));
    } catch {
      // gone
    }
  }
  return total;
}
/** Whole-machine busy CPU seconds (all processes, including other people's). */
function cpuOfMachine(): number {
  const line = require('node:fs').readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return (line[0] + line[1] + line[2] + line[5] + line[6] + line[7]) / 100;
}

/**
 * The dev server as src/temporal/dev-server.ts starts it, plus BENCH_TEMPORAL_DYNAMIC_CONFIG
 * (comma-separated KEY=VALUE, e.g. system.enableActivityEagerExecution=true) to compare settings.
 */
async function startBenchTemporal(port: number) {
  const extra = (process.env.BENCH_TEMPORAL_DYNAMIC_CONFIG ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const dynamicConfig: Record<string, string | number | boolean> = {};
  for (const kv of extra) {
    const [k, v] = [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)];
    dynamicConfig[k] = v === 'true' ? true : v === 'false' ? false : Number.isFinite(Number(v)) ? Number(v) : v;
  }
  if (extra.length) log(`dev server with ${extra.join(' ')}`);
  return startDevServer({ port, log, dynamicConfig });
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

async function main() {
  const tpl = `gw_bench_wh_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, tpl);
  const dbUrl = withDatabase(PG, tpl);
  const admin = createDb(dbUrl, 2);
  await migrateLatest(admin);
  await admin.destroy();

  const temporalPort = await freePort();
  log('starting Temporal dev server');
  const temporal = await startBenchTemporal(temporalPort);
  const certs = await testCertificates();
  const receiver = spawn(process.execPath, ['-e', RECEIVER_SRC], {
    env: { ...process.env, KEY: certs.key, CERT: certs.cert },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
  const latencies: number[] = [];
  let arrived = 0;
  let buf = '';
  receiver.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) {
      const [e, a] = l.split(' ').map(Number);
      arrived++;
      latencies.push(a! - e!);
    }
  });

  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: dbUrl,
    DATABASE_POOL_MAX: '20',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'bench-webhooks',
    MASTER_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
    WEBHOOK_CA_FILE: certs.caFile,
  });
  const runtime = await startRuntime(config, { role: 'worker', databaseUrl: dbUrl, logger: createLogger('warn') });
  const db = runtime.ctx.db;
  const orgId = await seedOrg(db);
  const hook = await seedWebhook(db, config, orgId, `https://127.0.0.1:${port}/hook`, { events: ['request.created'] });
  log(`webhook ${hook.id} → receiver on 127.0.0.1:${port}`);

  // Warm-up: bundle, connections, JIT.
  for (let i = 0; i < 50; i++) await emitEvent(db, orgId, 'request.created', { request: { id: `warm-${i}`, emitted_at: Date.now() } });
  await waitDelivered(db, 50, 60_000);

  const rows: string[][] = [];
  const stageRows: string[][] = [];
  const cpuRows: string[][] = [];
  let total = 50;
  for (const rate of RATES) {
    latencies.length = 0;
    const startArrived = arrived;
    const n = Math.round(rate * SECONDS);
    log(`phase ${rate}/s: emitting ${n} events over ${SECONDS} s`);
    const cpu0 = { self: process.cpuUsage(), temporal: cpuOf(temporal.process.pid), receiver: cpuOf(receiver.pid), pg: cpuOfPostgres(), machine: cpuOfMachine() };
    const t0 = Date.now();
    let sent = 0;
    const inflight = new Set<Promise<unknown>>();
    while (sent < n) {
      const due = Math.min(n, Math.floor(((Date.now() - t0) / 1000) * rate) + 1);
      while (sent < due) {
        const p = emitEvent(db, orgId, 'request.created', { request: { id: `r-${rate}-${sent}`, model: 'gpt-4o-mini', total_tokens: 36, emitted_at: Date.now() } }).finally(() => inflight.delete(p));
        inflight.add(p);
        sent++;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(inflight);
    const emitSecs = (Date.now() - t0) / 1000;
    total += n;
    const done = await waitDelivered(db, total, 120_000);
    const secs = (done.at - t0) / 1000;
    const self = process.cpuUsage(cpu0.self);
    const perDelivery = (secs: number) => ((secs * 1000) / n).toFixed(2);
    cpuRows.push([
      String(rate),
      perDelivery((self.user + self.system) / 1e6),
      perDelivery(cpuOf(temporal.process.pid) - cpu0.temporal),
      perDelivery(cpuOfPostgres() - cpu0.pg),
      perDelivery(cpuOf(receiver.pid) - cpu0.receiver),
      perDelivery(cpuOfMachine() - cpu0.machine),
    ]);
    const sorted = [...latencies].sort((a, b) => a - b);
    const { rows: [stages] } = await db.raw(
      `select percentile_cont(0.5) within group (order by extract(epoch from created_at) * 1000 - (body::json->'request'->>'emitted_at')::bigint) as dispatch,
              percentile_cont(0.5) within group (order by extract(epoch from (workflow_started_at - created_at)) * 1000) as start,
              percentile_cont(0.5) within group (order by extract(epoch from (first_attempt_at - workflow_started_at)) * 1000) as first_task,
              percentile_cont(0.5) within group (order by extract(epoch from (delivered_at - first_attempt_at)) * 1000) as attempt
         from webhook_deliveries where body like ?`,
      [`%"r-${rate}-%`],
    );
    stageRows.push([String(rate), ...['dispatch', 'start', 'first_task', 'attempt'].map((k) => Number(stages[k]).toFixed(1))]);
    rows.push([
      String(rate),
      (n / emitSecs).toFixed(0),
      (((done.count - (total - n)) / secs) as number).toFixed(0),
      String(arrived - startArrived),
      pct(sorted, 50).toFixed(0),
      pct(sorted, 95).toFixed(0),
      pct(sorted, 99).toFixed(0),
      done.count >= total ? 'yes' : `no (${total - done.count} left)`,
    ]);
    if (done.count < total) break;
  }

  const header = ['target ev/s', 'emitted ev/s', 'delivered/s', 'received', 'p50 ms', 'p95 ms', 'p99 ms', 'all delivered'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padStart(widths[i]!)).join(' | ') + ' |';
  console.log(`\nWebhook delivery (1 webhook, ${SECONDS} s per rate, ${require('node:os').cpus().length} cores): event → first attempt latency at the receiver`);
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
  const sh = ['target ev/s', 'emit→record', 'record→started', 'started→first task', 'attempt'];
  const sw = sh.map((h, i) => Math.max(h.length, ...stageRows.map((r) => r[i]!.length)));
  const sline = (cells: string[]) => '| ' + cells.map((c, i) => c.padStart(sw[i]!)).join(' | ') + ' |';
  console.log('\nMedian time per stage (ms): outbox → delivery record (dispatcher), → workflow started, → first attempt begins (workflow time), attempt duration');
  console.log(sline(sh));
  console.log('|' + sw.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of stageRows) console.log(sline(r));
  const ch = ['target ev/s', 'service (worker+dispatcher+emitter)', 'temporal server', 'postgres', 'receiver', 'whole machine'];
  const cw = ch.map((h, i) => Math.max(h.length, ...cpuRows.map((r) => r[i]!.length)));
  const cline = (cells: string[]) => '| ' + cells.map((c, i) => c.padStart(cw[i]!)).join(' | ') + ' |';
  console.log('\nCPU milliseconds per delivery, by process (from emit start until all delivered)');
  console.log(cline(ch));
  console.log('|' + cw.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of cpuRows) console.log(cline(r));
  console.log(`\nload average at the end: ${require('node:os').loadavg().map((l: number) => l.toFixed(2)).join(' ')}`);

  await runtime.stop();
  receiver.kill();
  await temporal.stop();
  await dropDatabase(PG, tpl);
}

async function waitDelivered(db: ReturnType<typeof createDb>, expected: number, timeoutMs: number): Promise<{ count: number; at: number }> {
  const deadline = Date.now() + timeoutMs;
  let count = 0;
  for (;;) {
    const [{ c }] = await db('webhook_deliveries').where({ status: 'delivered' }).count<{ c: number }[]>({ c: '*' });
    count = Number(c);
    if (count >= expected || Date.now() > deadline) return { count, at: Date.now() };
    await new Promise((r) => setTimeout(r, 100));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
