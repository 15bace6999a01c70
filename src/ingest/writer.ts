import type { Knex } from 'knex';
import { HttpError } from '../http/errors';
import type { Logger } from '../logger';
import type { SpanPricer } from './cost';
import { applyUnits } from './store';
import type { IngestUnit, OpResult } from './types';

export interface WriterOptions {
  /** Transactions in flight at once (each holds one pooled connection). */
  concurrency: number;
  /** Operations merged into one transaction (a single larger request still goes alone). */
  maxBatchOps: number;
  /** Operations waiting beyond this answer 503 + Retry-After instead of queueing without bound. */
  maxQueuedOps: number;
}

interface Pending {
  unit: IngestUnit;
  resolve(r: OpResult[]): void;
  reject(e: unknown): void;
}

/** PostgreSQL errors worth retrying the same transaction for. */
const RETRYABLE = new Set(['40P01', '40001']);
/** Errors caused by the data (bad value, constraint, size limit): isolate the culprit, the rest can be stored. */
const dataError = (err: unknown) => {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
};

const unavailable = () =>
  new HttpError(503, 'ingest_unavailable', 'Trace storage is unavailable; retry shortly', {}, { 'retry-after': '1' });

/**
 * Group commit for ingest. Requests hand their operations over and wait; whatever queued while the
 * previous transactions ran is written together in one transaction, so many small SDK calls cost a
 * few commits while a lone call is written at once (no timer, no added latency). A request is
 * answered only after the transaction holding its operations committed: acknowledged means durable.
 *
 * Failures stay contained: a transaction failing on data (rather than on the database being
 * unreachable) is split and retried request by request, then operation by operation, so one bad
 * operation cannot fail its neighbours.
 */
export class IngestWriter {
  private queue: Pending[] = [];
  private queuedOps = 0;
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly opts: WriterOptions,
    private readonly price: SpanPricer,
  ) {}

  submit(unit: IngestUnit): Promise<OpResult[]> {
    if (unit.ops.length === 0) return Promise.resolve([]);
    if (this.closed)
      return Promise.reject(
        new HttpError(503, 'shutting_down', 'The service is shutting down; retry shortly', {}, { 'retry-after': '1' }),
      );
    if (this.queuedOps > 0 && this.queuedOps + unit.ops.length > this.opts.maxQueuedOps) {
      return Promise.reject(
        new HttpError(503, 'ingest_overloaded', 'Ingest is overloaded; retry shortly', {}, { 'retry-after': '1' }),
      );
    }
    return new Promise<OpResult[]>((resolve, reject) => {
      this.queue.push({ unit, resolve, reject });
      this.queuedOps += unit.ops.length;
      this.pump();
    });
  }

  /** Stops accepting and resolves when everything accepted so far is written. */
  async drain(): Promise<void> {
    this.closed = true;
    if (this.active === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  get stats() {
    return { queuedOps: this.queuedOps, queuedRequests: this.queue.length, activeTransactions: this.active };
  }

  private pump() {
    while (this.active < this.opts.concurrency && this.queue.length > 0) {
      const batch: Pending[] = [];
      let ops = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0]!;
        if (batch.length > 0 && ops + next.unit.ops.length > this.opts.maxBatchOps) break;
        batch.push(this.queue.shift()!);
        ops += next.unit.ops.length;
      }
      this.queuedOps -= ops;
      this.active++;
      void this.flush(batch).finally(() => {
        this.active--;
        this.pump();
        if (this.active === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      const results = await this.transaction(batch.map((p) => p.unit));
      batch.forEach((p, i) => p.resolve(results[i]!));
      return;
    } catch (err) {
      if (!dataError(err)) {
        this.logger.error({ err, requests: batch.length }, 'ingest transaction failed');
        for (const p of batch) p.reject(unavailable());
        return;
      }
      this.logger.warn({ err: String(err), requests: batch.length }, 'ingest transaction failed on data; isolating');
    }
    if (batch.length > 1) {
      for (const p of batch) await this.flush([p]);
      return;
    }
    // One request: store what can be stored, operation by operation.
    const [p] = batch as [Pending];
    const out: OpResult[] = [];
    for (const op of p.unit.ops) {
      try {
        const [r] = await this.transaction([{ ...p.unit, ops: [op] }]);
        out.push(r![0]!);
      } catch (err) {
        if (!dataError(err)) {
          p.reject(unavailable());
          return;
        }
        this.logger.warn({ err: String(err), op: op.op, id: op.id }, 'ingest operation rejected by the database');
        out.push({ ok: false, status: 422, code: 'unprocessable', error: 'The database refused this operation' });
      }
    }
    p.resolve(out);
  }

  private async transaction(units: IngestUnit[]): Promise<OpResult[][]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.db.transaction((trx) => applyUnits(trx, units, this.price))).results;
      } catch (err) {
        const code = (err as { code?: string })?.code;
        if (attempt >= 4 || !code || !RETRYABLE.has(code)) throw err;
        await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 20));
      }
    }
  }
}
