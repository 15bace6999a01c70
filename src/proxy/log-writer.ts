import type { Knex } from 'knex';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics/metrics';
import type { RequestJournal } from './journal';
import { WriterJournal, type Queued } from './log-journal';
import { insertRequestRows, isPermanent, minimalRow, storableRow, type LogEntry } from '../requests/writer';

export { type LogEntry, type RequestRow } from '../requests/writer';

export type LogWriterOptions = { queueMax: number; batchSize: number; flushMs: number };

export interface LogWriterDeps {
  /** Where rows are made durable before the caller gets its last byte (none: memory only). */
  journal?: RequestJournal | undefined;
  metrics?: Metrics | undefined;
  /** Told after each committed batch (the analytics fold, src/analytics/fold.ts). */
  afterCommit?: (() => void) | undefined;
}

type Outcome = 'stored' | 'stored_alone' | 'minimal' | 'dropped' | 'unjournaled';

/**
 * Writes request rows off the response path: entries queue in memory and are flushed in batches
 * (one multi-row insert plus the `request.created` outbox rows, rate-limit token counts and rollup
 * deltas, in one transaction) every `flushMs` or as soon as a batch is full.
 * Durability: `enqueue` first appends the row to the local journal (group-committed), and the
 * proxy releases the caller's last byte only once that is done; rows a killed process left in its
 * journal are replayed by `replay()` at the next start, idempotently (see docs/proxy.md).
 * Overflow policy: capacity is reserved when a call is admitted, before anything goes upstream,
 * and released when its row is written. When `queueMax` calls are already in flight or waiting to
 * be written (the database is down or far behind), new calls are refused with 503 before they
 * reach the provider, so no call the gateway forwarded ever goes unrecorded and memory stays bounded.
 * Transient database errors are retried with backoff; a batch with a permanently bad row is written
 * row by row, and a row refused even alone is stored as a minimal row (ids, status, timing, reason).
 */
export class RequestLogWriter {
  private queue: Queued[] = [];
  private reserved = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private backoffMs = 0;
  private stopped = false;
  private readonly journal: WriterJournal | undefined;
  private readonly metrics: Metrics | undefined;
  private readonly afterCommit: (() => void) | undefined;
  readonly stats = { written: 0, dropped: 0, failedBatches: 0, replayed: 0 };

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly opts: LogWriterOptions,
    deps: LogWriterDeps = {},
  ) {
    this.journal = deps.journal && new WriterJournal(deps.journal, logger, deps.metrics);
    this.metrics = deps.metrics;
    this.afterCommit = deps.afterCommit;
  }

  /** Claims room for one future row; false when the writer is saturated (caller answers 503). */
  reserve(): boolean {
    if (this.reserved >= this.opts.queueMax) return false;
    this.reserved++;
    return true;
  }

  /** Gives back a reservation that will produce no row (the call was rejected before upstream). */
  release(): void {
    if (this.reserved > 0) this.reserved--;
  }

  /**
   * Queues a row for a call that holds a reservation. Resolves once the row is in the journal (at
   * once without one, or when the journal cannot be written: the row is then kept in memory only).
   */
  enqueue(entry: LogEntry): Promise<void> {
    const q: Queued = { row: storableRow(entry.row), rateLimit: entry.rateLimit };
    const journal = this.journal;
    const journaled = new Promise<void>((resolve) => (journal ? journal.append(q, resolve) : resolve()));
    this.push(q);
    return journaled;
  }

  /** Re-queues the rows dead processes left in the journal directory; returns how many were found. */
  async replay(): Promise<number> {
    if (!this.journal || this.stopped) return 0;
    return this.journal.replay((q) => {
      this.reserved++;
      this.push(q);
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  get inFlight(): number {
    return this.reserved;
  }

  private push(q: Queued): void {
    this.queue.push(q);
    this.metrics?.requestLogQueueDepth.set(this.queue.length);
    if (this.queue.length >= this.opts.batchSize) this.kick(0);
    else this.kick(this.opts.flushMs);
  }

  private kick(delay: number): void {
    if (this.flushing) return; // the running flush re-schedules itself when rows remain
    if (this.timer && delay > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.flushing = this.flushLoop().finally(() => {
          this.flushing = undefined;
          if (this.queue.length && !this.stopped)
            this.kick(this.backoffMs || (this.queue.length >= this.opts.batchSize ? 0 : this.opts.flushMs));
        });
      },
      Math.max(delay, this.backoffMs),
    );
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.slice(0, this.opts.batchSize);
      try {
        await this.writeBatch(batch, 'stored');
        this.queue.splice(0, batch.length);
        this.backoffMs = 0;
      } catch (err) {
        this.stats.failedBatches++;
        if (isPermanent(err)) {
          this.queue.splice(0, batch.length);
          await this.writeOneByOne(batch);
        } else {
          this.backoff();
          this.logger.warn(
            { err, rows: batch.length, retryInMs: this.backoffMs },
            'request log batch failed; will retry',
          );
          return;
        }
      } finally {
        this.metrics?.requestLogQueueDepth.set(this.queue.length);
      }
      if (this.queue.length < this.opts.batchSize && !this.stopped) return; // let a partial batch wait for company
    }
  }

  private async writeOneByOne(batch: Queued[]): Promise<void> {
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      try {
        await this.writeAlone(e);
      } catch (err) {
        // The database went away mid-split: put the rest back in front and retry later.
        this.queue.unshift(...batch.slice(i));
        this.backoff();
        this.logger.warn({ err }, 'request log unreachable while splitting a batch; will retry');
        return;
      }
    }
  }

  /** One row on its own; refused again → its minimal form; refused even then → dropped, logged and counted. */
  private async writeAlone(e: Queued): Promise<void> {
    let firstErr: unknown;
    try {
      return await this.writeBatch([e], 'stored_alone');
    } catch (err) {
      if (!isPermanent(err)) throw err;
      firstErr = err;
    }
    this.logger.error(
      { err: firstErr, requestId: e.row.id, projectId: e.row.project_id },
      'request log row rejected by the database; storing a minimal row',
    );
    try {
      return await this.writeBatch([{ ...e, row: minimalRow(e.row, firstErr), rateLimit: undefined }], 'minimal');
    } catch (err) {
      if (!isPermanent(err)) throw err;
      this.stats.dropped++;
      this.settle([e], 'dropped');
      this.logger.error(
        { err, requestId: e.row.id, projectId: e.row.project_id },
        'request log row rejected even in minimal form; dropped',
      );
    }
  }

  private async writeBatch(batch: Queued[], outcome: Outcome): Promise<void> {
    const end = this.metrics?.requestLogFlushDuration.startTimer();
    // One statement stores the rows and what goes with them; only token counts need a transaction around it.
    const fresh = batch.some((e) => e.rateLimit)
      ? await this.db.transaction((trx) => insertRequestRows(trx, batch))
      : await insertRequestRows(this.db, batch);
    end?.();
    this.afterCommit?.();
    this.stats.written += batch.length;
    for (const e of fresh) this.count(e.replayed ? 'replayed' : outcome);
    this.stats.replayed += fresh.filter((e) => e.replayed).length;
    this.settle(batch);
  }

  /** The rows are in the database (or given up): their reservations and journal records go. */
  private settle(batch: Queued[], outcome?: Outcome): void {
    this.reserved = Math.max(0, this.reserved - batch.length);
    for (const e of batch) {
      e.settled = true;
      if (e.seg) this.journal?.file.settle(e.seg);
      if (outcome) this.count(outcome);
    }
  }

  private count(outcome: Outcome | 'replayed'): void {
    this.metrics?.requestLogRows.inc({ outcome });
  }

  private backoff(): void {
    this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), 5000);
  }

  /** Writes everything queued; used on graceful shutdown and by tests. Gives up after timeoutMs. */
  async drain(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.queue.length || this.flushing) && Date.now() < deadline) {
      if (this.flushing) {
        await this.flushing;
        continue;
      }
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      const before = this.queue.length;
      this.flushing = this.flushLoopAll().finally(() => (this.flushing = undefined));
      await this.flushing;
      if (this.queue.length >= before && this.backoffMs)
        await new Promise((r) => setTimeout(r, Math.min(this.backoffMs, Math.max(0, deadline - Date.now()))));
    }
    if (this.queue.length)
      this.logger.error(
        { rows: this.queue.length },
        'request log rows not written before shutdown; they stay in the journal for the next start',
      );
  }

  private async flushLoopAll(): Promise<void> {
    const stopped = this.stopped;
    this.stopped = true; // makes flushLoop write partial batches too
    try {
      await this.flushLoop();
    } finally {
      this.stopped = stopped;
    }
  }

  async stop(timeoutMs?: number): Promise<void> {
    await this.drain(timeoutMs);
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.journal?.file.close();
  }
}
