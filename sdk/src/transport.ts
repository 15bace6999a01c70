import { IngestError, type OperationRef } from './errors';
import type { HttpClient, HttpRequest } from './http';
import { utf8Bytes } from './json';
import { withRetries, type RetryPolicy } from './retry';
import type { ErrorOp, OpKind, TransportMode } from './types';

/** One write, serialized when it was recorded (a snapshot: later mutation by the caller can't change it). */
export interface Operation {
  kind: OpKind;
  id: string;
  traceId: string;
  /** JSON text of the wire body. */
  body: string;
}

export interface TransportOptions {
  http: HttpClient;
  mode: TransportMode;
  flushIntervalMs: number;
  maxBatchSize: number;
  maxBatchBytes: number;
  maxQueueSize: number;
  retry: RetryPolicy;
  /** Told about every operation that is finally dropped. Must not throw. */
  report: (err: IngestError, op: ErrorOp) => void;
  /** Told how many operations the server accepted. */
  onSent: (count: number) => void;
}

interface BatchItemResult {
  index: number;
  status: number;
  error?: string;
}

/**
 * The background send queue. One unit (a batch, or a single request) is in flight at a
 * time and units leave in enqueue order, which keeps every trace's operations in FIFO
 * order on the wire without per-trace bookkeeping. Nothing here ever rejects towards the
 * caller: failures go to `report`.
 */
export class Transport {
  private queue: Operation[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private mode: TransportMode;
  private stopped = false;

  constructor(private readonly options: TransportOptions) {
    this.mode = options.mode;
  }

  /** The mode in use; `batch` falls back to `single` when the server has no batch endpoint. */
  get currentMode(): TransportMode {
    return this.mode;
  }

  get pending(): number {
    return this.queue.length;
  }

  enqueue(op: Operation): void {
    if (this.stopped) return;
    if (this.queue.length >= this.options.maxQueueSize) {
      this.options.report(
        new IngestError(
          'queue_full',
          `send queue is full (${this.options.maxQueueSize} operations); ${op.kind} dropped`,
          {
            operations: [{ op: op.kind, id: op.id }],
          },
        ),
        'queue',
      );
      return;
    }
    this.queue.push(op);
    this.schedule();
  }

  /** Resolves once everything queued so far (and anything queued meanwhile) has settled. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.queue.length > 0) this.start();
      if (!this.running) return;
      await this.running;
    }
  }

  /** Flushes, then refuses further operations. */
  async shutdown(): Promise<void> {
    await this.flush();
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.running) return; // the running loop picks new operations up
    if (this.mode === 'single' || this.queue.length >= this.options.maxBatchSize) {
      this.start();
    } else if (!this.timer) {
      // Wait a little so operations recorded close together share one request.
      this.timer = setTimeout(() => this.start(), this.options.flushIntervalMs);
    }
  }

  private start(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      // Operations enqueued between the loop's last check and now would otherwise wait
      // for the next enqueue.
      if (this.queue.length > 0) this.schedule();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      try {
        if (this.mode === 'single') {
          await this.sendSingle(this.queue.shift()!);
        } else {
          await this.sendBatch(this.takeBatch());
        }
      } catch (err) {
        // Defensive: the send paths report their own failures; this keeps the loop alive.
        this.options.report(new IngestError('internal', `transport fault: ${String(err)}`, { cause: err }), 'internal');
      }
    }
  }

  /** Takes queued operations up to the batch count and byte limits (at least one). */
  private takeBatch(): Operation[] {
    const { maxBatchSize, maxBatchBytes } = this.options;
    let bytes = BATCH_ENVELOPE_BYTES;
    let count = 0;
    while (count < this.queue.length && count < maxBatchSize) {
      const size = utf8Bytes(batchItem(this.queue[count]!)) + 1; // +1 for the comma
      if (count > 0 && bytes + size > maxBatchBytes) break;
      bytes += size;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async sendSingle(op: Operation): Promise<void> {
    try {
      await withRetries(() => this.options.http.send(singleRequest(op)), this.options.retry);
      this.options.onSent(1);
    } catch (err) {
      this.options.report(asIngestError(err, [ref(op)]), op.kind);
    }
  }

  private async sendBatch(ops: Operation[]): Promise<void> {
    if (this.mode === 'single') {
      for (const op of ops) await this.sendSingle(op);
      return;
    }
    const request: HttpRequest = {
      method: 'POST',
      path: '/ingest/batch',
      body: `{"operations":[${ops.map(batchItem).join(',')}]}`,
    };
    let lastResults: BatchItemResult[] | undefined;
    let attempts = 0;
    try {
      await withRetries(async (n) => {
        attempts = n;
        const res = await this.options.http.send(request);
        lastResults = parseBatchResults(res.json, ops.length);
        // Replaying the whole batch is safe: creates are idempotent by id and updates are
        // last-write-wins, and resending everything in order keeps the final state right
        // even when an update failed only because its create had failed.
        if (lastResults.some((r) => r.status >= 500)) {
          throw new IngestError('item', 'batch had items failing with 5xx', { retryable: true });
        }
      }, this.options.retry);
    } catch (err) {
      if (err instanceof IngestError && err.kind === 'item') {
        // fall through to per-item reporting of the last attempt
      } else if (err instanceof IngestError && (err.status === 404 || err.status === 405)) {
        // A gateway without the batch endpoint: switch to single requests for good.
        this.mode = 'single';
        for (const op of ops) await this.sendSingle(op);
        return;
      } else if (err instanceof IngestError && err.status === 413 && ops.length > 1) {
        // Body over the server's limit: halve until it fits.
        const half = Math.ceil(ops.length / 2);
        await this.sendBatch(ops.slice(0, half));
        await this.sendBatch(ops.slice(half));
        return;
      } else {
        this.options.report(asIngestError(err, ops.map(ref)), 'batch');
        return;
      }
    }

    let sent = 0;
    const failures = new Map<number, BatchItemResult>();
    for (const r of lastResults ?? []) if (r.status >= 400) failures.set(r.index, r);
    ops.forEach((op, index) => {
      const failure = failures.get(index);
      if (!failure) {
        sent++;
        return;
      }
      const e = new IngestError(
        'item',
        `${op.kind} ${op.id} rejected with ${failure.status}${failure.error ? `: ${failure.error}` : ''}`,
        {
          status: failure.status,
          retryable: failure.status >= 500,
          operations: [ref(op)],
        },
      );
      e.attempts = attempts;
      this.options.report(e, op.kind);
    });
    if (sent > 0) this.options.onSent(sent);
  }
}

const BATCH_ENVELOPE_BYTES = utf8Bytes('{"operations":[]}');

function batchItem(op: Operation): string {
  return `{"op":"${op.kind}","id":${JSON.stringify(op.id)},"body":${op.body}}`;
}

function singleRequest(op: Operation): HttpRequest {
  const id = encodeURIComponent(op.id);
  switch (op.kind) {
    case 'trace.create':
      return { method: 'POST', path: '/ingest/traces', body: op.body };
    case 'trace.update':
      return { method: 'PATCH', path: `/ingest/traces/${id}`, body: op.body };
    case 'span.create':
      return { method: 'POST', path: '/ingest/spans', body: op.body };
    case 'span.update':
      return { method: 'PATCH', path: `/ingest/spans/${id}`, body: op.body };
  }
}

/**
 * Reads `{data:{results:[{index,status,error?}]}}`. A 2xx answer without readable results
 * is taken as "all accepted": the request as a whole succeeded and there is nothing more
 * specific to act on.
 */
function parseBatchResults(json: unknown, count: number): BatchItemResult[] {
  const results = (json as { data?: { results?: unknown } } | undefined)?.data?.results;
  if (!Array.isArray(results)) return [];
  const out: BatchItemResult[] = [];
  results.forEach((raw, position) => {
    if (!raw || typeof raw !== 'object') return;
    const r = raw as { index?: unknown; status?: unknown; error?: unknown };
    const index = typeof r.index === 'number' ? r.index : position;
    if (index < 0 || index >= count || typeof r.status !== 'number') return;
    const error = typeof r.error === 'string' ? r.error : r.error ? JSON.stringify(r.error) : undefined;
    out.push({ index, status: r.status, ...(error ? { error } : {}) });
  });
  return out;
}

function ref(op: Operation): OperationRef {
  return { op: op.kind, id: op.id };
}

function asIngestError(err: unknown, operations: OperationRef[]): IngestError {
  if (err instanceof IngestError) {
    const e = new IngestError(err.kind, err.message, {
      status: err.status,
      retryable: err.retryable,
      operations,
      cause: err.cause,
    });
    e.attempts = err.attempts;
    return e;
  }
  return new IngestError('internal', String(err), { operations, cause: err });
}
