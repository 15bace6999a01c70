/** Public types shared by the client, the handles and the integrations. */

import type { OpKind, SpanStatus, SpanType, TraceEndStatus } from './wire';

/** The wire format (span types, statuses, the four write operations, bodies): generated from the server's schemas. */
export type * from './wire';

/**
 * What the error hook is told failed: one operation, a whole batch request, or a local
 * policy drop (`queue` when the send queue is full, `buffer` when a sampled-out trace
 * overflowed its buffer, `internal` for an unexpected SDK fault that was swallowed).
 */
export type ErrorOp = OpKind | 'batch' | 'queue' | 'buffer' | 'internal';

export type TransportMode = 'batch' | 'single';

export type Metadata = Record<string, unknown>;

export interface RetryOptions {
  /** Attempts in total, including the first. Default 3. */
  attempts?: number;
  /** Wait before the 2nd attempt; doubles each time after. Default 200 ms (so 200, 400). */
  initialDelayMs?: number;
}

export interface GatewayClientOptions {
  /** Gateway base URL, e.g. `https://gateway.example.com`. */
  baseUrl: string;
  /** Full-scope API key (starts with `sl_live_`). */
  apiKey: string;
  /** Fraction of successful traces to keep, in [0, 1]. Error traces are always kept. Default 1. */
  sampleRate?: number;
  /** Called for every write that is finally dropped. Never called synchronously from your code. */
  onError?: (err: import('./errors').IngestError, op: ErrorOp) => void;
  /** Per-attempt request timeout. Default 10,000 ms. */
  timeoutMs?: number;
  /** Random source in [0, 1) used for sampling (inject a seeded one in tests). Default Math.random. */
  random?: () => number;
  /** fetch implementation (inject for tests). Default the global fetch. */
  fetch?: typeof fetch;
  /** `batch` (default) uses POST /ingest/batch; `single` sends one request per operation. */
  transport?: TransportMode;
  /** How long the first queued operation waits for company before a batch is sent. Default 200 ms. */
  flushIntervalMs?: number;
  /** Maximum operations in one batch request. Default 100. */
  maxBatchSize?: number;
  /** Maximum body size of one batch request (a single larger operation is sent alone). Default 512 KiB. */
  maxBatchBytes?: number;
  /** Operations waiting to be sent; beyond this new operations are dropped and reported. Default 10,000. */
  maxQueueSize?: number;
  /** Operations a sampled-out trace buffers before it starts dropping them. Default 1,000. */
  maxBufferedOperations?: number;
  /** Cap on the UTF-8 JSON size of each input and output. Default 16,384 bytes. */
  maxPayloadBytes?: number;
  retry?: RetryOptions;
}

export interface TraceOptions {
  name: string;
  sessionId?: string;
  userId?: string;
  metadata?: Metadata;
  input?: unknown;
  startTime?: Date;
}

export interface TraceUpdate {
  name?: string;
  output?: unknown;
  metadata?: Metadata;
}

export interface TraceEnd {
  /** Default `completed`. */
  status?: TraceEndStatus;
  output?: unknown;
  metadata?: Metadata;
  endTime?: Date;
}

export interface SpanOptions {
  name: string;
  /** Default `other`. */
  type?: SpanType;
  input?: unknown;
  model?: string;
  metadata?: Metadata;
  startTime?: Date;
}

export interface SpanUpdate {
  name?: string;
  input?: unknown;
  output?: unknown;
  status?: SpanStatus;
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** When omitted but both prompt and completion tokens are known, their sum is sent. */
  totalTokens?: number;
  metadata?: Metadata;
}

export interface SpanEnd extends SpanUpdate {
  /** Default `ok`. */
  status?: SpanStatus;
  endTime?: Date;
}

/** Counters for observing the SDK itself (all cumulative since construction). */
export interface ClientStats {
  tracesStarted: number;
  tracesSampledOut: number;
  /** Sampled-out traces that ended in error and were replayed. */
  tracesReplayed: number;
  /** Sampled-out traces that completed and were discarded without any request. */
  tracesDiscarded: number;
  /** Operations dropped because a sampled-out trace's buffer was full. */
  bufferDroppedOperations: number;
  /** Operations dropped because the send queue was full. */
  queueDroppedOperations: number;
  /** Operations the server accepted. */
  sentOperations: number;
  /** Operations that finally failed (after retries) and were dropped / reported. */
  failedOperations: number;
}
