import { randomUUID } from 'node:crypto';
import { OperationBuffer } from './buffer';
import { IngestError } from './errors';
import { safeStringify } from './json';
import type { Sampler } from './sampler';
import type { Operation, Transport } from './transport';
import { capPayload } from './truncate';
import type { ClientStats, ErrorOp, OpKind, TraceEndStatus } from './types';

/** Per-trace routing state: where this trace's operations go. */
export interface TraceState {
  readonly id: string;
  readonly sampled: boolean;
  /** Holds a sampled-out trace's operations until it ends; null otherwise. */
  buffer: OperationBuffer<Operation> | null;
  /** Operations go straight to the transport (sampled in, or replayed after an error). */
  live: boolean;
  ended: boolean;
}

export interface RecorderOptions {
  sampler: Sampler;
  transport: Transport;
  maxBufferedOperations: number;
  maxPayloadBytes: number;
  report: (err: IngestError, op: ErrorOp) => void;
}

/**
 * The core shared by a client's handles: applies sampling and the payload cap, snapshots
 * each operation, and routes it to the transport or the trace's buffer.
 */
export class Recorder {
  readonly stats: ClientStats = {
    tracesStarted: 0,
    tracesSampledOut: 0,
    tracesReplayed: 0,
    tracesDiscarded: 0,
    bufferDroppedOperations: 0,
    queueDroppedOperations: 0,
    sentOperations: 0,
    failedOperations: 0,
  };
  closed = false;
  /** Open sampled-out traces, so shutdown can release their buffers. */
  private readonly buffered = new Set<TraceState>();

  constructor(private readonly options: RecorderOptions) {}

  newId(): string {
    return randomUUID();
  }

  openTrace(): TraceState {
    const id = this.newId();
    this.stats.tracesStarted++;
    if (this.closed || this.options.sampler.sample()) {
      return { id, sampled: true, buffer: null, live: true, ended: false };
    }
    this.stats.tracesSampledOut++;
    const state: TraceState = {
      id,
      sampled: false,
      buffer: new OperationBuffer(this.options.maxBufferedOperations),
      live: false,
      ended: false,
    };
    this.buffered.add(state);
    return state;
  }

  cap(value: unknown): unknown {
    return capPayload(value, this.options.maxPayloadBytes);
  }

  /** Records one operation. `body` is serialized now so later caller mutations don't leak in. */
  emit(state: TraceState, kind: OpKind, id: string, body: Record<string, unknown>): void {
    if (this.closed) return;
    if (!state.live && !state.buffer) return; // sampled out and completed: nothing is sent
    const op: Operation = { kind, id, traceId: state.id, body: safeStringify(body) ?? '{}' };
    if (state.live) {
      this.options.transport.enqueue(op);
    } else {
      state.buffer!.push(op);
    }
  }

  /**
   * Applies the end-of-trace sampling rule. Returns whether the trace-end update should be
   * sent, and how many buffered operations were lost to the buffer cap.
   */
  finishTrace(state: TraceState, status: TraceEndStatus): { send: boolean; dropped: number } {
    state.ended = true;
    if (state.live || !state.buffer) return { send: state.live, dropped: 0 };
    const buffer = state.buffer;
    state.buffer = null;
    this.buffered.delete(state);
    if (status !== 'error' || this.closed) {
      this.stats.tracesDiscarded++;
      return { send: false, dropped: 0 };
    }
    // An error trace is always kept: replay what was recorded, in order.
    this.stats.tracesReplayed++;
    state.live = true;
    for (const op of buffer.drain()) this.options.transport.enqueue(op);
    const dropped = buffer.dropped;
    if (dropped > 0) {
      this.stats.bufferDroppedOperations += dropped;
      this.options.report(
        new IngestError(
          'buffer_overflow',
          `trace ${state.id} exceeded ${buffer.capacity} buffered operations; ${dropped} dropped`,
        ),
        'buffer',
      );
    }
    return { send: true, dropped };
  }

  /** Stops recording: open sampled-out traces are released (they never errored). */
  close(): void {
    this.closed = true;
    for (const state of this.buffered) state.buffer = null;
    this.buffered.clear();
  }

  /** Runs SDK bookkeeping so that a fault in it can never reach the caller. */
  guard<T>(what: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.options.report(new IngestError('internal', `${what} failed: ${String(err)}`, { cause: err }), 'internal');
      return undefined;
    }
  }
}
