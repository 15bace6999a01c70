/**
 * Webhook delivery benchmark: `npm run bench:webhooks`.
 *
 * Before and after in one run: the harness below runs twice, in child processes, first against the
 * committed code (BENCH_BEFORE, default HEAD, checked out into a temporary `git worktree` with this
 * tree's node_modules linked; the shared working tree is not touched), then against the working
 * tree, and prints both side by side. BENCH_BEFORE=none runs the working tree only.
 *
 * Each run: a Temporal dev server (in memory, headless) on a free port, a fresh PostgreSQL
 * database, the service's worker role (Temporal worker + outbox dispatcher) in the child process,
 * and an HTTPS receiver (test CA, loopback only) in a grandchild. For each target rate, events are
 * emitted with `emitEvent` (one transaction each, like a feature would) for BENCH_SECONDS, to one
 * subscribed webhook; the tables show the emitted rate, the rate at which delivery workflows
 * completed (record `delivered`), the event-to-first-attempt latency measured at the receiver
 * (p50/p95/p99), and CPU milliseconds per delivery by process (utime + stime from /proc/<pid>/stat
 * before and after: the service process, the Temporal dev server, this database's PostgreSQL
 * backends; robust to other load on the machine, unlike the rates). Bounded: each phase emits for
 * BENCH_SECONDS and drains for at most 120 s.
 *
 * Then the floor (bench/webhooks-floor.ts): the same rates through Temporal alone, a workflow that does
 * nothing and a delivery-shaped one with no work in it, on the service's own worker; BENCH_FLOOR=0 skips it.
 *
 * Env: BENCH_SECONDS (default 5), BENCH_RATES (default 5,25,100,300), BENCH_PG_URL,
 * BENCH_BEFORE (git ref, default HEAD; `none` to skip), BENCH_TEMPORAL_DYNAMIC_CONFIG
 * (KEY=VALUE,... passed to the dev server), BENCH_FLOOR. Internal: BENCH_ROOT (code under test), BENCH_OUT.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuOf, cpuOfMachine, cpuOfPids, cpuOfPostgres } from './proc';
import { compare } from './webhooks-compare';
import { startBenchTemporal } from './webhooks-temporal';
import { pct, print, type RunResult } from './webhooks-report';

const REPO = path.resolve(__dirname, '..');
/** The code under test: this tree, or the `before` worktree. */
const ROOT = process.env.BENCH_ROOT ?? REPO;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = <T>(rel: string): T => require(path.join(ROOT, rel)) as T;
const { loadConfig } = load<typeof import('../src/config')>('src/config');
const { createDatabase, dropDatabase, withDatabase } = load<typeof import('../src/db/admin')>('src/db/admin');
const { createDb, migrateLatest } = load<typeof import('../src/db/knex')>('src/db/knex');
const { emitEvent } = load<typeof import('../src/events/outbox')>('src/events/outbox');
const { createLogger } = load<typeof import('../src/logger')>('src/logger');
const { startRuntime } = load<typeof import('../src/runtime')>('src/runtime');
const { startDevServer } = load<typeof import('../src/temporal/dev-server')>('src/temporal/dev-server');
const { freePort } = load<typeof import('../src/util/net')>('src/util/net');
const { seedOrg, seedWebhook } = load<typeof import('../test/integration/webhooks/fixtures')>(
  'test/integration/webhooks/fixtures',
);
const { testCertificates } = load<typeof import('../test/helpers/https-receiver')>('test/helpers/https-receiver');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATES = (process.env.BENCH_RATES ?? '5,25,100,300').split(',').map(Number);
const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/** The receiver: answers 204 at once and prints `<emitted_at> <arrived_at>` per request. */
const RECEIVER_SRC = `
const https = require('node:https');
const options = { key: process.env.KEY, cert: process.env.CERT, keepAliveTimeout: 30000 };
const server = https.createServer(options, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    res.statusCode = 204;
    res.end();
    try {
      const b = JSON.parse(Buffer.concat(chunks));
      process.stdout.write(b.request.emitted_at + ' ' + at + '\\n');
    } catch {}
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
`;

const backendsSql = 'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()';

async function run(label: string, rev: string): Promise<RunResult> {
  const tpl = `gw_bench_wh_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, tpl);
  const dbUrl = withDatabase(PG, tpl);
  const admin = createDb(dbUrl, 2);
  await migrateLatest(admin);
  await admin.destroy();

  const temporalPort = await freePort();
  log(`${label}: starting Temporal dev server`);
  const temporal = await startBenchTemporal(temporalPort, log, startDevServer);
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
    // One fast receiver takes everything: per-endpoint isolation (where the build has it) must not cap this run.
    WEBHOOK_ENDPOINT_MAX_IN_FLIGHT: process.env.WEBHOOK_ENDPOINT_MAX_IN_FLIGHT ?? '1000',
  });
  const runtime = await startRuntime(config, { role: 'worker', databaseUrl: dbUrl, logger: createLogger('warn') });
  const db = runtime.ctx.db;
  const orgId = await seedOrg(db);
  const hook = await seedWebhook(db, config, orgId, `https://127.0.0.1:${port}/hook`, { events: ['request.created'] });
  log(`${label}: webhook ${hook.id} → receiver on 127.0.0.1:${port}`);

  // Warm-up: bundle, connections, JIT.
  for (let i = 0; i < 50; i++)
    await emitEvent(db, orgId, 'request.created', { request: { id: `warm-${i}`, emitted_at: Date.now() } });
  await waitDelivered(db, 50, 60_000);
  const rows: string[][] = [];
  const stageRows: string[][] = [];
  const cpuRows: string[][] = [];
  let total = 50;
  for (const rate of RATES) {
    latencies.length = 0;
    const startArrived = arrived;
    const n = Math.round(rate * SECONDS);
    log(`${label}: phase ${rate}/s: emitting ${n} events over ${SECONDS} s`);
    const pgPids0 = ((await db.raw(backendsSql)).rows as { pid: number }[]).map((r) => r.pid);
    const pg0 = cpuOfPids(pgPids0);
    const cpu0 = {
      self: process.cpuUsage(),
      temporal: cpuOf(temporal.process.pid),
      receiver: cpuOf(receiver.pid),
      pgAll: cpuOfPostgres(),
      machine: cpuOfMachine(),
    };
    const t0 = Date.now();
    let sent = 0;
    const inflight = new Set<Promise<unknown>>();
    while (sent < n) {
      const due = Math.min(n, Math.floor(((Date.now() - t0) / 1000) * rate) + 1);
      while (sent < due) {
        const p = emitEvent(db, orgId, 'request.created', {
          request: { id: `r-${rate}-${sent}`, model: 'gpt-4o-mini', total_tokens: 36, emitted_at: Date.now() },
        }).finally(() => inflight.delete(p));
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
    const pgPids1 = ((await db.raw(backendsSql)).rows as { pid: number }[]).map((r) => r.pid);
    let pgOurs = 0;
    for (const [pid, c] of cpuOfPids(new Set([...pgPids0, ...pgPids1]))) pgOurs += c - (pg0.get(pid) ?? 0);
    const perDelivery = (secs: number) => ((secs * 1000) / n).toFixed(2);
    const service = (self.user + self.system) / 1e6;
    const temporalCpu = cpuOf(temporal.process.pid) - cpu0.temporal;
    cpuRows.push([
      String(rate),
      perDelivery(service),
      perDelivery(temporalCpu),
      perDelivery(pgOurs),
      perDelivery(service + temporalCpu + pgOurs),
      perDelivery(cpuOfPostgres() - cpu0.pgAll),
      perDelivery(cpuOf(receiver.pid) - cpu0.receiver),
      perDelivery(cpuOfMachine() - cpu0.machine),
    ]);
    const sorted = [...latencies].sort((a, b) => a - b);
    const {
      rows: [stages],
    } = await db.raw(
      `select percentile_cont(0.5) within group
                (order by extract(epoch from created_at) * 1000 - (body::json->'request'->>'emitted_at')::bigint)
                as dispatch,
              percentile_cont(0.5) within group
                (order by extract(epoch from (first_attempt_at - created_at)) * 1000) as start,
              percentile_cont(0.5) within group
                (order by extract(epoch from (delivered_at - first_attempt_at)) * 1000) as attempt
         from webhook_deliveries where body like ?`,
      [`%"r-${rate}-%`],
    );
    stageRows.push([String(rate), ...['dispatch', 'start', 'attempt'].map((k) => Number(stages[k]).toFixed(1))]);
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

  // History events of one delivered delivery (the server's work per delivery grows with them).
  let historyEvents: number | null = null;
  try {
    const one = await db('webhook_deliveries').where({ status: 'delivered' }).first('workflow_id');
    const { Connection, Client } = load<typeof import('@temporalio/client')>('node_modules/@temporalio/client');
    const connection = await Connection.connect({ address: temporal.address });
    const history = await new Client({ connection }).workflow.getHandle(one.workflow_id).fetchHistory();
    historyEvents = history.events?.length ?? null;
    await connection.close();
  } catch (err) {
    log(`could not count history events: ${(err as Error).message}`);
  }

  const loadavg = os
    .loadavg()
    .map((l: number) => l.toFixed(2))
    .join(' ');
  await runtime.stop();
  receiver.kill();
  await temporal.stop();
  await dropDatabase(PG, tpl);
  return { label, rev, rows, stageRows, cpuRows, historyEvents, loadavg };
}

async function main(): Promise<void> {
  if (!process.env.BENCH_OUT) return compare(__filename, SECONDS);
  const result = await run(process.env.BENCH_LABEL ?? 'after', process.env.BENCH_REV ?? '');
  writeFileSync(process.env.BENCH_OUT, JSON.stringify(result));
  print([result], SECONDS);
}

async function waitDelivered(
  db: ReturnType<typeof createDb>,
  expected: number,
  timeoutMs: number,
): Promise<{ count: number; at: number }> {
  const deadline = Date.now() + timeoutMs;
  let count = 0;
  for (;;) {
    const [{ c }] = await db('webhook_deliveries').where({ status: 'delivered' }).count<{ c: number }[]>({ c: '*' });
    count = Number(c);
    if (count >= expected || Date.now() > deadline) return { count, at: Date.now() };
    await new Promise((r) => setTimeout(r, 100));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
