/**
 * bench:webhooks' floor: the same rates through Temporal alone, printed beside the builds.
 *
 * A child of bench/webhooks.ts (BENCH_OUT set): a fresh dev server started as the bench starts it,
 * the service's own worker (`startWorker`, same slots and threads) on a bundle of
 * bench/floor-workflows.ts, and two workflows started open-loop at each rate:
 * - `empty`: a workflow that does nothing (eager start, no attributes);
 * - `delivery-shaped`: `startDeliveryWorkflow`, the service's start call, of a workflow that runs one
 *   local activity doing nothing and upserts the delivered status: a delivery's Temporal part, without
 *   the outbox, PostgreSQL or the HTTPS attempt.
 * Both rows are what one workflow per delivery costs before the service does any of its own work.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { createLogger } from '../src/logger';
import { startDevServer } from '../src/temporal/dev-server';
import { startWorker, workflowBundle } from '../src/temporal/worker';
import { freePort } from '../src/util/net';
import { startDeliveryWorkflow } from '../src/webhooks/workflow-client';
import { cpuOf, cpuOfMachine } from './proc';
import { startBenchTemporal } from './webhooks-temporal';
import { pct, type RunResult } from './webhooks-report';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATES = (process.env.BENCH_RATES ?? '5,25,100,300').split(',').map(Number);
const TASK_QUEUE = 'bench-floor';
/** The service's starter's default concurrency (src/webhooks/dispatch/starter.ts). */
const STARTS_IN_FLIGHT = 64;
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

type Variant = 'empty' | 'delivery-shaped';

async function main(): Promise<void> {
  const temporal = await startBenchTemporal(await freePort(), log, startDevServer);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wh-floor-'));
  const bundlePath = path.join(dir, 'bundle.js');
  const { code } = await workflowBundle(require.resolve('./floor-workflows'));
  writeFileSync(bundlePath, code);
  // Each attempt notes its delay from the moment its start was due (waiting for a start slot counts, as an
  // event's wait in the outbox does): the id carries that time.
  const delays: number[] = [];
  let finished = 0;
  const activities = {
    attemptWebhookDelivery: async (id: string) => void delays.push(Date.now() - Number(id.split('-')[0])),
  };
  const worker = await startWorker({
    address: temporal.address,
    namespace: 'default',
    taskQueue: TASK_QUEUE,
    logger: createLogger('warn'),
    activities,
    bundlePath,
    sinks: { floor: { done: { fn: () => void finished++, callDuringReplay: false } } },
  });
  const results: RunResult[] = [];
  try {
    for (const variant of ['empty', 'delivery-shaped'] as Variant[]) {
      const result: RunResult = {
        label: `floor: ${variant} workflow`,
        rev: 'Temporal only',
        rows: [],
        stageRows: [],
        cpuRows: [],
        historyEvents: null,
        loadavg: '',
      };
      const start = (i: number, due: number) =>
        variant === 'empty'
          ? worker.client.workflow.start('emptyWorkflow', {
              taskQueue: TASK_QUEUE,
              workflowId: `floor-empty-${randomBytes(6).toString('hex')}-${i}`,
              requestEagerStart: true,
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
            })
          : startDeliveryWorkflow(
              worker.client,
              TASK_QUEUE,
              {
                id: `${due}-${randomBytes(6).toString('hex')}`,
                webhookId: 'wh_floor',
                orgId: 'org_floor',
                eventType: 'request.created',
                url: 'https://hooks.example.com/floor',
              },
              { eager: true },
            );
      await phase(50, 50, start, () => finished); // warm-up: bundle, connections, JIT
      for (const rate of RATES) {
        delays.length = 0;
        const n = Math.round(rate * SECONDS);
        log(`floor, ${variant}: ${rate}/s, ${n} workflows`);
        const cpu0 = { self: process.cpuUsage(), temporal: cpuOf(temporal.process.pid), machine: cpuOfMachine() };
        const t0 = Date.now();
        const { startSecs, left } = await phase(rate, n, start, () => finished);
        const secs = (Date.now() - t0) / 1000;
        const self = process.cpuUsage(cpu0.self);
        const per = (s: number) => ((s * 1000) / n).toFixed(2);
        const service = (self.user + self.system) / 1e6;
        const server = cpuOf(temporal.process.pid) - cpu0.temporal;
        const sorted = [...delays].sort((a, b) => a - b);
        const lat = (p: number) => (sorted.length ? pct(sorted, p).toFixed(0) : '–');
        result.rows.push([
          String(rate),
          (n / startSecs).toFixed(0),
          (n / secs).toFixed(0),
          variant === 'empty' ? '–' : String(delays.length),
          lat(50),
          lat(95),
          lat(99),
          left ? `no (${left} left)` : 'yes',
        ]);
        result.stageRows.push([String(rate), '–', lat(50), '–']);
        result.cpuRows.push([
          String(rate),
          per(service),
          per(server),
          '–',
          per(service + server),
          '–',
          '–',
          per(cpuOfMachine() - cpu0.machine),
        ]);
      }
      result.historyEvents = await historyLength(worker.client, variant);
      result.loadavg = os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
      results.push(result);
    }
  } finally {
    await worker.stop();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  writeFileSync(process.env.BENCH_OUT!, JSON.stringify(results));
}

/**
 * Starts `n` workflows at `rate` per second (open loop) and waits until `finished()` counts them all:
 * the workflows report through a sink, so this asks the server nothing (polling a visibility count
 * would be the server's work, not a delivery's). Returns the starts' seconds and the runs not finished.
 */
async function phase(
  rate: number,
  n: number,
  start: (i: number, due: number) => Promise<unknown>,
  finished: () => number,
): Promise<{ startSecs: number; left: number }> {
  const t0 = Date.now();
  const target = finished() + n;
  const started: Promise<unknown>[] = [];
  // At most STARTS_IN_FLIGHT start calls at once, as the service's starter: beyond the worker's free
  // workflow-task slots a start is no longer eager, and the task goes through matching and a poll.
  let inflight = 0;
  const waiting: (() => void)[] = [];
  const bounded = async (i: number, due: number) => {
    if (inflight < STARTS_IN_FLIGHT) inflight++;
    else await new Promise<void>((r) => waiting.push(r)); // the slot is handed over by the one ending
    try {
      await start(i, due);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else inflight--;
    }
  };
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / rate - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    started.push(bounded(i, Date.now()));
  }
  await Promise.all(started);
  const startSecs = (Date.now() - t0) / 1000;
  const deadline = Date.now() + 120_000;
  while (finished() < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return { startSecs, left: target - finished() };
}

async function historyLength(client: Client, variant: Variant): Promise<number | null> {
  const type = variant === 'empty' ? 'emptyWorkflow' : 'webhookDeliveryWorkflow';
  for await (const wf of client.workflow.list({ query: `WorkflowType="${type}"`, pageSize: 1 })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    return history.events?.length ?? null;
  }
  return null;
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
