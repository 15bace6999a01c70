import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Client } from '@temporalio/client';
import type { AppContext } from '../context';
import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import { buildBody } from '../webhooks/payload';
import { deliveryClientFor } from '../webhooks/safe-http';
import { deliveryWorkflowId } from '../webhooks/policy';
import { startDeliveryWorkflow, type DeliveryToStart } from '../webhooks/workflow-client';
import { OUTBOX_CHANNEL } from './outbox';
import type { RunningWorker } from '../temporal/worker';

/**
 * Drains the event outbox into delivery records and delivery workflows (worker role).
 *
 * - Woken by LISTEN/NOTIFY on a dedicated connection (emitters notify in their transaction, so the
 *   wake-up arrives on commit), with a slow poll as backstop for lost notifications.
 * - One transaction per batch: outbox rows are locked FOR UPDATE SKIP LOCKED (several workers can
 *   drain side by side), one delivery record is written per active subscribed webhook, the outbox
 *   rows are deleted. Nothing is lost between the two tables.
 * - Workflows are started after commit. A start that fails (Temporal down) leaves the record's
 *   `workflow_started_at` null; later cycles retry those starts with backoff until they succeed.
 *   Starting a delivery twice is a no-op (workflow id derived from the delivery id).
 */

export interface DispatcherOptions {
  db: Db;
  client: Client;
  /** `client` is on the local worker's connection: request eager workflow start. */
  eagerStart?: boolean;
  /** Deadline wrapper for Temporal calls (Connection.withDeadline). */
  withDeadline: <T>(ms: number, fn: () => Promise<T>) => Promise<T>;
  taskQueue: string;
  logger: Logger;
  /** Connection string for the LISTEN connection. */
  listenUrl?: string;
  pollMs: number;
  batchSize?: number;
  startConcurrency?: number;
}

interface OutboxRow {
  id: number;
  org_id: string;
  kind: string;
  payload: Record<string, unknown>;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  org_id: string;
  event_type: string;
  url: string;
}

export class OutboxDispatcher {
  private stopped = false;
  private wakeRequested = false;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private listener: pg.Client | undefined;
  private listenerRetry: NodeJS.Timeout | undefined;
  private temporalRetryAt = 0;
  private temporalBackoffMs = 0;
  private lastSweep = 0;
  /** Deliveries waiting for a workflow start, and those being started (never started twice at once). */
  private readonly queue: DeliveryRow[] = [];
  private readonly claimed = new Set<string>();
  private inflight = 0;
  private startedIds: string[] = [];
  private flushing: Promise<void> | undefined;
  private idleStarts: (() => void)[] = [];
  private readonly batchSize: number;
  private readonly startConcurrency: number;
  private readonly log: Logger;

  constructor(private readonly opts: DispatcherOptions) {
    this.batchSize = opts.batchSize ?? 200;
    this.startConcurrency = opts.startConcurrency ?? 64;
    this.log = opts.logger.child({ component: 'outbox-dispatcher' });
  }

  async start(): Promise<void> {
    await this.listen().catch((err) => {
      this.log.warn({ err }, 'outbox LISTEN connection failed; polling until it is back');
      this.scheduleListenRetry();
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    if (this.listenerRetry) clearTimeout(this.listenerRetry);
    await this.loop;
    this.queue.length = 0;
    await this.startsSettled();
    await this.flushStarted();
    await this.listener?.end().catch(() => undefined);
  }

  /** Asks for a drain cycle now (NOTIFY does this; tests may too). */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  private async listen(): Promise<void> {
    if (!this.opts.listenUrl) return;
    const client = new pg.Client({ connectionString: this.opts.listenUrl, application_name: 'llm-gateway-outbox-listener' });
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      this.log.warn({ err }, 'outbox LISTEN connection lost');
      client.end().catch(() => undefined);
      if (this.listener === client) this.listener = undefined;
      this.scheduleListenRetry();
    });
    await client.connect();
    await client.query(`listen ${OUTBOX_CHANNEL}`);
    this.listener = client;
    this.wake(); // catch up on anything committed while we were not listening
  }

  private scheduleListenRetry(): void {
    if (this.stopped || this.listenerRetry) return;
    this.listenerRetry = setTimeout(() => {
      this.listenerRetry = undefined;
      if (this.stopped) return;
      this.listen().catch((err) => {
        this.log.debug({ err }, 'outbox LISTEN reconnect failed');
        this.scheduleListenRetry();
      });
    }, 2_000);
    this.listenerRetry.unref();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.wakeRequested = false;
      let busy = false;
      try {
        busy = await this.cycle();
      } catch (err) {
        this.log.error({ err }, 'outbox dispatch cycle failed');
        await this.idle(1_000);
        continue;
      }
      if (!busy && !this.wakeRequested) await this.idle(this.nextWaitMs());
    }
  }

  private nextWaitMs(): number {
    const untilTemporal = this.temporalRetryAt - Date.now();
    return untilTemporal > 0 ? Math.min(this.opts.pollMs, untilTemporal) : this.opts.pollMs;
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }

  /**
   * One round: move a batch from the outbox into delivery records and hand them to the starter
   * (which works in the background, so the next batch is dispatched while workflows start); now
   * and then, pick up records whose start failed earlier. True if more work is waiting.
   */
  async cycle(): Promise<boolean> {
    const created = await this.dispatchBatch();
    this.enqueue(created);
    let swept = 0;
    const now = Date.now();
    if (now >= this.temporalRetryAt && now - this.lastSweep >= Math.min(this.opts.pollMs, 5_000)) {
      this.lastSweep = now;
      swept = await this.sweepUnstarted();
    }
    return created.length === this.batchSize || swept === this.batchSize;
  }

  /** Resolves when every queued and running start has finished and been recorded (tests, shutdown). */
  async drained(): Promise<void> {
    await this.startsSettled();
    await this.flushStarted();
  }

  private startsSettled(): Promise<void> {
    if (this.inflight === 0 && (this.queue.length === 0 || Date.now() < this.temporalRetryAt)) return Promise.resolve();
    return new Promise((resolve) => this.idleStarts.push(resolve));
  }

  /** Outbox rows → delivery records, atomically. Returns the records created. */
  private async dispatchBatch(): Promise<DeliveryRow[]> {
    return this.opts.db.transaction(async (trx) => {
      const { rows: events } = await trx.raw<{ rows: OutboxRow[] }>(
        'select id, org_id, kind, payload from event_outbox order by id limit ? for update skip locked',
        [this.batchSize],
      );
      if (events.length === 0) return [];
      const orgIds = [...new Set(events.map((e) => e.org_id))];
      const hooks: { id: string; org_id: string; url: string; events: string[] }[] = await trx('webhooks')
        .select('id', 'org_id', 'url', 'events')
        .whereIn('org_id', orgIds)
        .whereNull('deleted_at')
        .andWhere('is_active', true);
      const dispatchedAt = new Date();
      const deliveries: (DeliveryRow & { body: string; workflow_id: string })[] = [];
      for (const e of events) {
        for (const h of hooks) {
          if (h.org_id !== e.org_id || !h.events.includes(e.kind)) continue;
          const id = randomUUID();
          deliveries.push({
            id,
            webhook_id: h.id,
            org_id: e.org_id,
            event_type: e.kind,
            url: h.url,
            body: buildBody(e.kind, h.id, dispatchedAt, e.payload),
            workflow_id: deliveryWorkflowId(id),
          });
        }
      }
      // Chunked to stay under PostgreSQL's bind-parameter limit for big fan-outs.
      for (let i = 0; i < deliveries.length; i += 1000) {
        await trx('webhook_deliveries').insert(
          deliveries.slice(i, i + 1000).map(({ url: _u, ...d }) => ({ ...d, status: 'pending', created_at: dispatchedAt })),
        );
      }
      await trx.raw('delete from event_outbox where id = any(?::bigint[])', [events.map((e) => e.id)]);
      return deliveries.map(({ id, webhook_id, org_id, event_type, url }) => ({ id, webhook_id, org_id, event_type, url }));
    });
  }

  /** Records whose workflow start failed earlier (Temporal down) or was lost in a crash. */
  private async sweepUnstarted(): Promise<number> {
    const rows: DeliveryRow[] = await this.opts.db('webhook_deliveries as d')
      .join('webhooks as w', 'w.id', 'd.webhook_id')
      .select('d.id', 'd.webhook_id', 'd.org_id', 'd.event_type', 'w.url')
      .whereNull('d.workflow_started_at')
      .whereNotNull('d.workflow_id')
      // Leave very fresh rows to the dispatcher that created them.
      .andWhere('d.created_at', '<', this.opts.db.raw("now() - interval '2 seconds'"))
      .orderBy('d.created_at')
      .limit(this.batchSize);
    const fresh = rows.filter((r) => !this.claimed.has(r.id));
    if (fresh.length) this.log.info({ count: fresh.length }, 'starting delivery workflows that could not be started before');
    this.enqueue(fresh);
    return rows.length;
  }

  private enqueue(rows: DeliveryRow[]): void {
    for (const r of rows) {
      if (this.claimed.has(r.id)) continue;
      this.claimed.add(r.id);
      this.queue.push(r);
    }
    this.pump();
  }

  /** Keeps up to `startConcurrency` workflow starts in flight. */
  private pump(): void {
    while (this.inflight < this.startConcurrency && this.queue.length && Date.now() >= this.temporalRetryAt) {
      const r = this.queue.shift()!;
      this.inflight++;
      const d: DeliveryToStart = { id: r.id, webhookId: r.webhook_id, orgId: r.org_id, eventType: r.event_type, url: r.url };
      this.opts
        .withDeadline(5_000, () => startDeliveryWorkflow(this.opts.client, this.opts.taskQueue, d, { eager: this.opts.eagerStart }))
        .then(
          () => {
            this.temporalBackoffMs = 0;
            this.startedIds.push(r.id);
            this.scheduleFlush();
          },
          (err) => this.startFailed(err),
        )
        .finally(() => {
          this.inflight--;
          this.claimed.delete(r.id);
          this.pump();
          if (this.inflight === 0 && (this.queue.length === 0 || Date.now() < this.temporalRetryAt)) {
            for (const fn of this.idleStarts.splice(0)) fn();
          }
        });
    }
  }

  private startFailed(err: unknown): void {
    if (Date.now() < this.temporalRetryAt) return; // already backing off
    this.temporalBackoffMs = Math.min(30_000, Math.max(1_000, this.temporalBackoffMs * 2));
    this.temporalRetryAt = Date.now() + this.temporalBackoffMs;
    // The queued rows are safe in PostgreSQL; the sweep starts them once Temporal answers again.
    for (const r of this.queue.splice(0)) this.claimed.delete(r.id);
    this.log.warn({ err, retryInMs: this.temporalBackoffMs }, 'could not start delivery workflows (Temporal unavailable?); they stay queued in PostgreSQL');
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      await new Promise((r) => setImmediate(r));
      try {
        await this.flushStarted();
      } finally {
        this.flushing = undefined;
        if (this.startedIds.length) this.scheduleFlush();
      }
    })();
  }

  /** Marks started workflows in one statement per batch (a lost mark only causes a harmless re-start). */
  private async flushStarted(): Promise<void> {
    while (this.startedIds.length) {
      const ids = this.startedIds.splice(0, 1000);
      await this.opts.db
        .raw('update webhook_deliveries set workflow_started_at = now() where id = any(?::uuid[]) and workflow_started_at is null', [ids])
        .catch((err) => this.log.warn({ err }, 'could not mark delivery workflows as started; the sweep will re-start them harmlessly'));
    }
  }
}

function connectionStringOf(db: Db): string | undefined {
  const conn = (db.client as { config?: { connection?: unknown } }).config?.connection;
  if (typeof conn === 'string') return conn;
  return (conn as { connectionString?: string } | undefined)?.connectionString;
}

/** Background service of the worker role (registered in src/runtime.ts). */
export async function outboxDispatcherService(ctx: AppContext, worker: RunningWorker): Promise<{ stop(): Promise<void> }> {
  // The worker's delivery client (shared with the activities): a bad WEBHOOK_CA_FILE stops start-up here.
  deliveryClientFor(ctx.config);
  const dispatcher = new OutboxDispatcher({
    db: ctx.db,
    // Starts go through the worker's own connection with eager start: the new workflow's first task
    // comes back in the start response and runs on this worker, skipping task matching and a poll.
    client: worker.client,
    eagerStart: true,
    withDeadline: (ms, fn) => worker.connection.withDeadline(Date.now() + ms, fn),
    taskQueue: ctx.temporal.settings.taskQueue,
    logger: ctx.logger,
    listenUrl: connectionStringOf(ctx.db),
    pollMs: ctx.config.WEBHOOK_DISPATCH_POLL_MS,
  });
  await dispatcher.start();
  return dispatcher;
}
