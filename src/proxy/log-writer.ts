import type { Knex } from 'knex';
import { emitEvents, type OutboxEvent } from '../events/outbox';
import type { Logger } from '../logger';
import { addTokens } from '../rate-limits/admission';

/** One `requests` row as written (column names). */
export interface RequestRow {
  id: string;
  org_id: string;
  project_id: string;
  api_key_id: string | null;
  provider: string;
  model: string;
  method: string;
  path: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
  latency_ms: number;
  ttfb_ms: number | null;
  status_code: number;
  trace_id: string | null;
  span_id: string | null;
  user_id: string | null;
  session_id: string | null;
  request_body: string;
  response_body: string;
  log_mode: 'full' | 'meta' | 'none';
  cache_hit: boolean;
  streamed: boolean;
  tokens_estimated: boolean;
  self_hosted: boolean;
  prompt_version_id: string | null;
  error: string | null;
  created_at: string;
}

export interface LogEntry {
  row: RequestRow;
  /** Window the call was admitted in, when an end-user rate limit applied: its tokens are added there. */
  rateLimit?: { projectId: string; userId: string; windowStart: Date } | undefined;
}

export interface LogWriterOptions {
  queueMax: number;
  batchSize: number;
  flushMs: number;
}

/** The `request.created` event body: exactly the request fields the spec lists. */
export function requestCreatedEvent(row: RequestRow): OutboxEvent {
  return {
    orgId: row.org_id,
    kind: 'request.created',
    object: {
      request: {
        id: row.id,
        provider: row.provider,
        model: row.model,
        prompt_tokens: row.prompt_tokens,
        completion_tokens: row.completion_tokens,
        total_tokens: row.total_tokens,
        cost_usd: row.cost_usd,
        latency_ms: row.latency_ms,
        status_code: row.status_code,
        trace_id: row.trace_id,
        created_at: row.created_at,
      },
    },
  };
}

const PERMANENT_PG_ERRORS = /^(22|23|42)/; // data exceptions, constraint violations, bad SQL: retrying the same rows cannot help

/**
 * Writes request rows off the response path: entries queue in memory and are flushed in batches
 * (one multi-row insert plus the `request.created` outbox rows and rate-limit token counts, all in
 * one transaction) every `flushMs` or as soon as a batch is full.
 *
 * Overflow policy: capacity is reserved when a call is admitted, before anything goes upstream,
 * and released when its row is written. When `queueMax` calls are already in flight or waiting to
 * be written (the database is down or far behind), new calls are refused with 503 before they
 * reach the provider, so no call the gateway forwarded ever goes unrecorded and memory stays bounded.
 * Transient database errors are retried with backoff; a batch with a permanently bad row is split
 * so only that row is dropped (and logged).
 */
export class RequestLogWriter {
  private queue: LogEntry[] = [];
  private reserved = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private backoffMs = 0;
  private stopped = false;
  readonly stats = { written: 0, dropped: 0, failedBatches: 0 };

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly opts: LogWriterOptions,
  ) {}

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

  /** Queues a row for a call that holds a reservation. */
  enqueue(entry: LogEntry): void {
    this.queue.push(entry);
    if (this.queue.length >= this.opts.batchSize) this.kick(0);
    else this.kick(this.opts.flushMs);
  }

  get pending(): number {
    return this.queue.length;
  }

  get inFlight(): number {
    return this.reserved;
  }

  private kick(delay: number): void {
    if (this.flushing) return; // the running flush re-schedules itself when rows remain
    if (this.timer && delay > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushLoop().finally(() => {
        this.flushing = undefined;
        if (this.queue.length && !this.stopped) this.kick(this.backoffMs || (this.queue.length >= this.opts.batchSize ? 0 : this.opts.flushMs));
      });
    }, Math.max(delay, this.backoffMs));
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.slice(0, this.opts.batchSize);
      try {
        await this.writeBatch(batch);
        this.queue.splice(0, batch.length);
        this.done(batch.length);
        this.backoffMs = 0;
      } catch (err) {
        this.stats.failedBatches++;
        if (isPermanent(err)) {
          this.queue.splice(0, batch.length);
          await this.writeOneByOne(batch);
        } else {
          this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), 5000);
          this.logger.warn({ err, rows: batch.length, retryInMs: this.backoffMs }, 'request log batch failed; will retry');
          return;
        }
      }
      if (this.queue.length < this.opts.batchSize && !this.stopped) return; // let a partial batch wait for company
    }
  }

  private async writeOneByOne(batch: LogEntry[]): Promise<void> {
    for (const e of batch) {
      try {
        await this.writeBatch([e]);
        this.done(1);
      } catch (err) {
        if (!isPermanent(err)) {
          // The database went away mid-split: put the rest back in front and retry later.
          const rest = batch.slice(batch.indexOf(e));
          this.queue.unshift(...rest);
          this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), 5000);
          return;
        }
        this.stats.dropped++;
        this.release();
        this.logger.error({ err, requestId: e.row.id, projectId: e.row.project_id }, 'request log row rejected by the database; dropped');
      }
    }
  }

  private done(n: number): void {
    this.stats.written += n;
    this.reserved = Math.max(0, this.reserved - n);
  }

  private async writeBatch(batch: LogEntry[]): Promise<void> {
    const rows = batch.map((e) => e.row);
    await this.db.transaction(async (trx) => {
      await trx.raw(`insert into requests select * from json_populate_recordset(null::requests, ?::json)`, [JSON.stringify(rows)]);
      const limited = batch.filter((e) => e.rateLimit && e.row.total_tokens > 0);
      if (limited.length) {
        await addTokens(
          trx,
          limited.map((e) => ({ ...e.rateLimit!, tokens: e.row.total_tokens })),
        );
      }
      await emitEvents(trx, rows.map(requestCreatedEvent));
    });
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
      if (this.queue.length >= before && this.backoffMs) await new Promise((r) => setTimeout(r, Math.min(this.backoffMs, Math.max(0, deadline - Date.now()))));
    }
    if (this.queue.length) this.logger.error({ rows: this.queue.length }, 'request log rows not written before shutdown');
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
  }
}

function isPermanent(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && PERMANENT_PG_ERRORS.test(code);
}
