import type { Client } from '@temporalio/client';
import type { Db } from '../../db/knex';
import type { Logger } from '../../logger';
import type { Metrics } from '../../metrics/metrics';
import { WEBHOOK_DELIVERY_WORKFLOW } from '../policy';
import { startDeliveryWorkflow } from '../workflow-client';
import { markWorkflowsStarted, type DeliveryToDispatch } from './queries';

/** How often started records are marked (the sweep leaves records younger than 2 s alone). */
const MARK_STARTED_EVERY_MS = 1_000;

export interface StarterOptions {
  db: Db;
  client: Client;
  /** `client` is on the local worker's connection: request eager workflow start. */
  eagerStart?: boolean;
  /** Deadline wrapper for Temporal calls (Connection.withDeadline). */
  withDeadline: <T>(ms: number, fn: () => Promise<T>) => Promise<T>;
  taskQueue: string;
  logger: Logger;
  metrics: Pick<Metrics, 'workflowStarts'>;
  concurrency?: number;
}

/**
 * Starts delivery workflows in the background, up to `concurrency` at once, never the same
 * delivery twice at once. When Temporal does not answer it backs off (1 s doubling to 30 s) and
 * drops its queue: the records stay in PostgreSQL and the dispatcher's sweep hands them back.
 * Started records are marked in batches, once a second (a lost mark only causes a harmless re-start).
 */
export class WorkflowStarter {
  /** Temporal is backed off until then (epoch ms). */
  retryAt = 0;
  private backoffMs = 0;
  private readonly queue: DeliveryToDispatch[] = [];
  private readonly claimed = new Set<string>();
  private inflight = 0;
  private startedIds: string[] = [];
  private readonly unmarked = new Set<string>();
  private flushing: Promise<void> | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly concurrency: number;

  constructor(private readonly opts: StarterOptions) {
    this.concurrency = opts.concurrency ?? 64;
  }

  /** Queued, starting, or started and not yet marked: the sweep must not hand it back. */
  isClaimed = (id: string) => this.claimed.has(id) || this.unmarked.has(id);

  enqueue(rows: DeliveryToDispatch[]): void {
    for (const r of rows) {
      if (this.claimed.has(r.id)) continue;
      this.claimed.add(r.id);
      this.queue.push(r);
    }
    this.pump();
  }

  /** Forgets what is queued (shutdown): those records are started by the next process's sweep. */
  clear(): void {
    for (const r of this.queue.splice(0)) this.claimed.delete(r.id);
  }

  /** Resolves when every queued and running start has finished and been recorded (tests, shutdown). */
  async drained(): Promise<void> {
    if (!this.idle()) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.flushStarted();
  }

  private idle(): boolean {
    return this.inflight === 0 && (this.queue.length === 0 || Date.now() < this.retryAt);
  }

  private pump(): void {
    while (this.inflight < this.concurrency && this.queue.length && Date.now() >= this.retryAt) {
      const r = this.queue.shift()!;
      this.inflight++;
      // start() catches its own errors (counted and backed off), so this promise never rejects.
      void this.start(r).finally(() => {
        this.inflight--;
        this.claimed.delete(r.id);
        this.pump();
        if (this.idle()) for (const fn of this.idleWaiters.splice(0)) fn();
      });
    }
  }

  private async start(r: DeliveryToDispatch): Promise<void> {
    const { client, taskQueue, eagerStart, metrics } = this.opts;
    const d = { id: r.id, webhookId: r.webhook_id, orgId: r.org_id, eventType: r.event_type, url: r.url };
    try {
      const result = await this.opts.withDeadline(5_000, () =>
        startDeliveryWorkflow(client, taskQueue, d, { eager: eagerStart }),
      );
      metrics.workflowStarts.inc({
        workflow: WEBHOOK_DELIVERY_WORKFLOW,
        outcome: result === 'already' ? 'already_started' : 'started',
      });
      this.backoffMs = 0;
      this.startedIds.push(r.id);
      this.unmarked.add(r.id);
      this.scheduleFlush();
    } catch (err) {
      metrics.workflowStarts.inc({ workflow: WEBHOOK_DELIVERY_WORKFLOW, outcome: 'failed' });
      this.startFailed(err);
    }
  }

  private startFailed(err: unknown): void {
    if (Date.now() < this.retryAt) return; // already backing off
    this.backoffMs = Math.min(30_000, Math.max(1_000, this.backoffMs * 2));
    this.retryAt = Date.now() + this.backoffMs;
    this.clear();
    this.opts.logger.warn(
      { err, retryInMs: this.backoffMs },
      'could not start delivery workflows (Temporal unavailable?); they stay queued in PostgreSQL',
    );
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      // Batched: the first attempt's claim marks its record too (same statement), so most of these
      // updates find nothing left to do; one statement a second instead of one per event-loop turn.
      // Until marked, a started record counts as claimed, so the sweep does not hand it back.
      await new Promise((r) => setTimeout(r, MARK_STARTED_EVERY_MS).unref());
      try {
        await this.flushStarted();
      } finally {
        this.flushing = undefined;
        if (this.startedIds.length) this.scheduleFlush();
      }
    })();
  }

  private async flushStarted(): Promise<void> {
    while (this.startedIds.length) {
      const ids = this.startedIds.splice(0, 1000);
      await markWorkflowsStarted(this.opts.db, ids).catch((err) =>
        this.opts.logger.warn(
          { err },
          'could not mark delivery workflows as started; the sweep will re-start them harmlessly',
        ),
      );
      for (const id of ids) this.unmarked.delete(id);
    }
  }
}
