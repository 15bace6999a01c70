import type { AppContext, WorkerLink } from '../../context';
import type { Db } from '../../db/knex';
import { PgListener } from '../../db/listener';
import type { Logger } from '../../logger';
import { OUTBOX_CHANNEL } from '../../events/outbox';
import { fanOutOutbox, unstartedDeliveries } from './queries';
import { WorkflowStarter, type StarterOptions } from './starter';

/**
 * Drains the event outbox into delivery records and delivery workflows (worker role).
 *
 * - Woken by LISTEN/NOTIFY (emitters notify in their transaction, so the wake-up arrives on
 *   commit) through a {@link PgListener}, with a slow poll as backstop for lost notifications.
 * - Two statements per batch (src/events/queries.ts): read the oldest outbox rows with their
 *   subscribed webhooks, then one statement that deletes them and inserts one delivery record per
 *   active subscribed webhook for the rows it deleted. Nothing is lost between the two tables, and
 *   dispatchers side by side never insert an event's records twice.
 * - Workflows are started after commit by the {@link WorkflowStarter}. A start that fails
 *   (Temporal down) leaves the record's `workflow_started_at` null; the sweep here hands those
 *   back until they start. Starting a delivery twice is a no-op (workflow id = delivery id).
 */

interface DispatcherOptions extends Omit<StarterOptions, 'concurrency'> {
  /** Connection string for the LISTEN connection (none: polling only). */
  listenUrl?: string;
  pollMs: number;
  batchSize?: number;
  startConcurrency?: number;
}

class OutboxDispatcher {
  private stopped = false;
  private wakeRequested = false;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private lastSweep = 0;
  private readonly listener: PgListener | undefined;
  private readonly starter: WorkflowStarter;
  private readonly batchSize: number;
  private readonly log: Logger;

  constructor(private readonly opts: DispatcherOptions) {
    this.batchSize = opts.batchSize ?? 200;
    this.log = opts.logger.child({ component: 'outbox-dispatcher' });
    this.starter = new WorkflowStarter({ ...opts, logger: this.log, concurrency: opts.startConcurrency });
    this.listener = opts.listenUrl
      ? new PgListener({
          url: opts.listenUrl,
          channels: [OUTBOX_CHANNEL],
          logger: this.log,
          name: 'llm-gateway-outbox-listener',
          onNotify: () => this.wake(),
          // Catch up on anything committed while we were not listening.
          onConnect: () => this.wake(),
        })
      : undefined;
  }

  async start(): Promise<void> {
    await this.listener?.start();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    this.starter.clear();
    await this.starter.drained();
    await this.listener?.stop();
  }

  /** Asks for a drain cycle now (NOTIFY does this; tests may too). */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  /** Resolves when every queued and running start has finished and been recorded (tests, shutdown). */
  drained(): Promise<void> {
    return this.starter.drained();
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
    const untilTemporal = this.starter.retryAt - Date.now();
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
    const created = await fanOutOutbox(this.opts.db, this.batchSize);
    this.starter.enqueue(created);
    let swept = 0;
    const now = Date.now();
    if (now >= this.starter.retryAt && now - this.lastSweep >= Math.min(this.opts.pollMs, 5_000)) {
      this.lastSweep = now;
      swept = await this.sweepUnstarted();
    }
    return created.length === this.batchSize || swept === this.batchSize;
  }

  private async sweepUnstarted(): Promise<number> {
    const rows = await unstartedDeliveries(this.opts.db, this.batchSize);
    const fresh = rows.filter((r) => !this.starter.isClaimed(r.id));
    if (fresh.length)
      this.log.info({ count: fresh.length }, 'starting delivery workflows that could not be started before');
    this.starter.enqueue(fresh);
    return rows.length;
  }
}

function connectionStringOf(db: Db): string | undefined {
  const conn = (db.client as { config?: { connection?: unknown } }).config?.connection;
  if (typeof conn === 'string') return conn;
  return (conn as { connectionString?: string } | undefined)?.connectionString;
}

/** Background service of the worker role (registered in src/runtime.ts). */
export async function outboxDispatcherService(ctx: AppContext, worker: WorkerLink): Promise<{ stop(): Promise<void> }> {
  const dispatcher = new OutboxDispatcher({
    db: ctx.db,
    // Starts go through the worker's own connection with eager start: the new workflow's first task
    // comes back in the start response and runs on this worker, skipping task matching and a poll.
    client: worker.client,
    eagerStart: true,
    withDeadline: (ms, fn) => worker.connection.withDeadline(Date.now() + ms, fn),
    taskQueue: ctx.temporal.settings.taskQueue,
    logger: ctx.logger,
    metrics: ctx.metrics,
    listenUrl: connectionStringOf(ctx.db),
    pollMs: ctx.config.WEBHOOK_DISPATCH_POLL_MS,
  });
  await dispatcher.start();
  return dispatcher;
}
