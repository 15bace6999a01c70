import { DEFAULT_MAX_BUFFERED_OPERATIONS } from './buffer';
import { IngestError } from './errors';
import { activeScope, currentScope, runInSpan, Span, Trace, errorOutput } from './handles';
import { HttpClient } from './http';
import { Recorder } from './recorder';
import { DEFAULT_RETRY } from './retry';
import { Sampler } from './sampler';
import { Transport } from './transport';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './truncate';
import type { ClientStats, ErrorOp, GatewayClientOptions, SpanOptions, TraceOptions } from './types';

export const DEFAULTS = {
  sampleRate: 1,
  timeoutMs: 10_000,
  transport: 'batch',
  flushIntervalMs: 200,
  maxBatchSize: 100,
  maxBatchBytes: 512 * 1024,
  maxQueueSize: 10_000,
  maxBufferedOperations: DEFAULT_MAX_BUFFERED_OPERATIONS,
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  retryAttempts: DEFAULT_RETRY.attempts,
  retryInitialDelayMs: DEFAULT_RETRY.initialDelayMs,
} as const;

const API_KEY_PREFIX = 'sl_live_';

/**
 * The client agent code talks to. Construction validates the configuration and throws on
 * a bad one; after that, nothing the client or its handles do throws into caller code or
 * waits on the network: writes are queued and sent in the background.
 */
export class GatewayClient {
  readonly baseUrl: string;
  readonly sampleRate: number;
  private readonly recorder: Recorder;
  private readonly transport: Transport;
  private readonly onError: GatewayClientOptions['onError'];
  private shuttingDown: Promise<void> | null = null;

  constructor(options: GatewayClientOptions) {
    if (!options || typeof options !== 'object') throw new TypeError('GatewayClient options are required');
    this.baseUrl = validateBaseUrl(options.baseUrl);
    const apiKey = validateApiKey(options.apiKey);
    const sampler = new Sampler(
      options.sampleRate === undefined ? DEFAULTS.sampleRate : options.sampleRate,
      options.random ?? Math.random,
    );
    this.sampleRate = sampler.rate;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function')
      throw new TypeError('no fetch available: pass options.fetch (Node 18+ has a global fetch)');
    if (options.onError !== undefined && typeof options.onError !== 'function')
      throw new TypeError('onError must be a function');
    if (options.random !== undefined && typeof options.random !== 'function')
      throw new TypeError('random must be a function');
    const mode = options.transport ?? DEFAULTS.transport;
    if (mode !== 'batch' && mode !== 'single')
      throw new TypeError(`transport must be 'batch' or 'single', got ${String(mode)}`);
    this.onError = options.onError;

    const report = (err: IngestError, op: ErrorOp) => this.report(err, op);
    this.transport = new Transport({
      http: new HttpClient({
        baseUrl: this.baseUrl,
        apiKey,
        timeoutMs: positiveInt('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs),
        fetch: fetchImpl,
      }),
      mode,
      flushIntervalMs: nonNegativeInt('flushIntervalMs', options.flushIntervalMs, DEFAULTS.flushIntervalMs),
      maxBatchSize: positiveInt('maxBatchSize', options.maxBatchSize, DEFAULTS.maxBatchSize),
      maxBatchBytes: positiveInt('maxBatchBytes', options.maxBatchBytes, DEFAULTS.maxBatchBytes),
      maxQueueSize: positiveInt('maxQueueSize', options.maxQueueSize, DEFAULTS.maxQueueSize),
      retry: {
        attempts: positiveInt('retry.attempts', options.retry?.attempts, DEFAULTS.retryAttempts),
        initialDelayMs: nonNegativeInt(
          'retry.initialDelayMs',
          options.retry?.initialDelayMs,
          DEFAULTS.retryInitialDelayMs,
        ),
      },
      report,
      onSent: (count) => {
        this.recorder.stats.sentOperations += count;
      },
    });
    const maxPayloadBytes = positiveInt('maxPayloadBytes', options.maxPayloadBytes, DEFAULTS.maxPayloadBytes);
    // Below this the truncation envelope itself would not fit.
    if (maxPayloadBytes < 128) throw new RangeError('maxPayloadBytes must be at least 128');
    this.recorder = new Recorder({
      sampler,
      transport: this.transport,
      maxBufferedOperations: positiveInt(
        'maxBufferedOperations',
        options.maxBufferedOperations,
        DEFAULTS.maxBufferedOperations,
      ),
      maxPayloadBytes,
      report,
    });
  }

  /** Starts a trace. The sampling decision for it (and all its spans) is taken here. */
  startTrace(options: TraceOptions): Trace {
    return new Trace(this.recorder, this.recorder.openTrace(), options);
  }

  /**
   * Runs `fn` inside a new trace: resolves/rejects like `fn`, ending the trace `completed`
   * with the return value as output, or `error` when it throws.
   */
  async withTrace<T>(options: TraceOptions, fn: (trace: Trace) => T | Promise<T>): Promise<T> {
    const trace = this.startTrace(options);
    let result: T;
    try {
      result = await activeScope.run({ owner: this.recorder, trace }, () => fn(trace));
    } catch (err) {
      trace.end({ status: 'error', output: errorOutput(err) });
      throw err;
    }
    trace.end({ status: 'completed', output: result });
    return result;
  }

  /**
   * Starts a span under the active span or trace of this client (see `withSpan`). With none
   * active, it starts a trace of its own that ends when the span ends, with the span's
   * status (`error` → `error`, else `completed`).
   */
  startSpan(options: SpanOptions): Span {
    const scope = this.activeScope();
    if (scope) return scope.span ? scope.span.startSpan(options) : scope.trace.startSpan(options);
    const trace = this.startTrace({ name: options?.name, input: options?.input });
    return new Span(trace, undefined, options, trace);
  }

  /**
   * Runs `fn` in a new span (nested under the active one, see `startSpan`): success ends
   * it `ok` with the return value as output; a throw ends it `error` and is rethrown.
   */
  withSpan<T>(options: SpanOptions, fn: (span: Span) => T | Promise<T>): Promise<T> {
    return runInSpan(this.startSpan(options), fn);
  }

  /**
   * Wraps a function so every call runs in its own span, with the arguments as input
   * (the argument itself when there is exactly one).
   */
  traced<A extends unknown[], R>(options: SpanOptions, fn: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
    const client = this;
    return function (this: unknown, ...args: A): Promise<R> {
      return client.withSpan({ ...options, input: options.input ?? argumentsInput(args) }, () => fn.apply(this, args));
    };
  }

  /** The innermost active span of this client, if any. */
  currentSpan(): Span | undefined {
    return this.activeScope()?.span;
  }

  /** The active trace of this client, if any. */
  currentTrace(): Trace | undefined {
    return this.activeScope()?.trace;
  }

  /**
   * Resolves once every write queued so far has been sent or finally dropped. Never
   * rejects. Open sampled-out traces stay buffered (they have nothing to send yet).
   */
  flush(): Promise<void> {
    return this.transport.flush();
  }

  /**
   * Flushes and stops: later writes are ignored and buffered sampled-out traces that are
   * still open are discarded. Safe to call more than once.
   */
  shutdown(): Promise<void> {
    if (!this.shuttingDown) {
      this.recorder.close();
      this.shuttingDown = this.transport.shutdown();
    }
    return this.shuttingDown;
  }

  stats(): ClientStats {
    return { ...this.recorder.stats };
  }

  private activeScope() {
    const scope = currentScope();
    return scope && scope.owner === this.recorder ? scope : undefined;
  }

  private report(err: IngestError, op: ErrorOp): void {
    const stats = this.recorder.stats;
    if (err.kind === 'queue_full') stats.queueDroppedOperations += err.operations.length;
    else if (err.kind !== 'buffer_overflow' && err.kind !== 'internal') stats.failedOperations += err.operations.length;
    if (!this.onError) return;
    try {
      this.onError(err, op);
    } catch {
      // A throwing hook must not break the send loop or reach the caller.
    }
  }
}

function validateBaseUrl(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError('baseUrl is required');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`baseUrl is not a valid URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be http(s)');
  return value.replace(/\/+$/, '');
}

function validateApiKey(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith(API_KEY_PREFIX) || value.length <= API_KEY_PREFIX.length) {
    throw new TypeError(`apiKey must be a full-scope gateway key starting with ${API_KEY_PREFIX}`);
  }
  return value;
}

function positiveInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function nonNegativeInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

export function argumentsInput(args: readonly unknown[]): unknown {
  if (args.length === 0) return undefined;
  return args.length === 1 ? args[0] : args;
}
