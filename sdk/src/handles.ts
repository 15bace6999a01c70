import { AsyncLocalStorage } from 'node:async_hooks';
import type { Recorder, TraceState } from './recorder';
import type {
  Metadata,
  SpanEnd,
  SpanOptions,
  SpanType,
  SpanUpdate,
  TraceEnd,
  TraceOptions,
  TraceUpdate,
} from './types';
import type { SpanCreateBody, SpanUpdateBody, TraceCreateBody, TraceUpdateBody } from './wire';

/**
 * The trace (and innermost span) the current async call chain runs in. This is how
 * `withSpan` nests without passing handles around, and how the integrations find where
 * to record.
 */
export interface ActiveScope {
  /** The Recorder (one per client) the scope belongs to. */
  owner: object;
  trace: Trace;
  span?: Span;
}

export const activeScope = new AsyncLocalStorage<ActiveScope>();

export function currentScope(): ActiveScope | undefined {
  return activeScope.getStore();
}

const SPAN_TYPES: ReadonlySet<string> = new Set(['llm', 'retrieval', 'tool', 'agent', 'chain', 'embedding', 'other']);

/**
 * A trace being recorded. All methods are fire-and-forget: they queue work and return at
 * once, and never throw.
 */
export class Trace {
  readonly id: string;
  readonly name: string;
  /** Whether this trace was sampled in (sent as it happens) or is buffered until it ends. */
  readonly sampled: boolean;
  private metadata: Metadata | undefined;
  private ended = false;

  /** @internal */
  constructor(
    /** @internal */ readonly recorder: Recorder,
    /** @internal */ readonly state: TraceState,
    rawOptions: TraceOptions,
  ) {
    const options = normalizeOptions(rawOptions, 'trace');
    this.id = state.id;
    this.name = options.name;
    this.sampled = state.sampled;
    this.metadata = options.metadata;
    recorder.guard('trace.create', () =>
      recorder.emit(state, 'trace.create', this.id, {
        id: this.id,
        name: options.name,
        session_id: options.sessionId,
        user_id: options.userId,
        metadata: options.metadata,
        input: recorder.cap(options.input),
        start_time: isoTime(options.startTime),
      } satisfies TraceCreateBody),
    );
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Starts a span directly under the trace. */
  startSpan(options: SpanOptions): Span {
    return new Span(this, undefined, options);
  }

  /** Runs `fn` in a new span directly under the trace (see {@link runInSpan}). */
  withSpan<T>(options: SpanOptions, fn: (span: Span) => T | Promise<T>): Promise<T> {
    return runInSpan(this.startSpan(options), fn);
  }

  /** Changes the name, output or metadata (metadata is merged with what was sent before). */
  update(fields: TraceUpdate): void {
    this.recorder.guard('trace.update', () => {
      this.recorder.emit(this.state, 'trace.update', this.id, {
        name: fields.name,
        output: this.recorder.cap(fields.output),
        metadata: this.mergeMetadata(fields.metadata),
      } satisfies TraceUpdateBody);
    });
  }

  /**
   * Ends the trace (default status `completed`). For a sampled-out trace this is where the
   * sampling rule applies: `error` replays everything recorded, `completed` discards it.
   * Later calls are ignored.
   */
  end(fields: TraceEnd = {}): void {
    if (this.ended) return;
    this.ended = true;
    this.recorder.guard('trace.end', () => {
      const status = fields.status === 'error' ? 'error' : 'completed';
      const { send, dropped } = this.recorder.finishTrace(this.state, status);
      if (!send) return;
      const extra = dropped > 0 ? { sdk_dropped_operations: dropped } : undefined;
      this.recorder.emit(this.state, 'trace.update', this.id, {
        end_time: isoTime(fields.endTime),
        status,
        output: this.recorder.cap(fields.output),
        metadata: fields.metadata || extra ? this.mergeMetadata({ ...fields.metadata, ...extra }) : undefined,
      } satisfies TraceUpdateBody);
    });
  }

  /**
   * The gateway may replace metadata on PATCH rather than merge it; sending the merged
   * object makes both behave the same.
   */
  private mergeMetadata(extra: Metadata | undefined): Metadata | undefined {
    if (!extra) return undefined;
    this.metadata = { ...this.metadata, ...extra };
    return this.metadata;
  }
}

/** A span being recorded. Like {@link Trace}, nothing here blocks or throws. */
export class Span {
  readonly id: string;
  readonly traceId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly type: SpanType;
  private metadata: Metadata | undefined;
  private ended = false;

  /** @internal */
  constructor(
    readonly trace: Trace,
    parent: Span | undefined,
    rawOptions: SpanOptions,
    /** @internal A trace started just for this span, ended together with it. */
    private readonly ownedTrace?: Trace,
  ) {
    const options = normalizeOptions(rawOptions, 'span');
    const recorder = trace.recorder;
    this.id = recorder.newId();
    this.traceId = trace.id;
    this.parentSpanId = parent?.id;
    this.name = options.name;
    this.type = options.type && SPAN_TYPES.has(options.type) ? options.type : 'other';
    this.metadata = options.metadata;
    recorder.guard('span.create', () =>
      recorder.emit(trace.state, 'span.create', this.id, {
        id: this.id,
        trace_id: this.traceId,
        parent_span_id: this.parentSpanId,
        name: options.name,
        span_type: this.type,
        input: recorder.cap(options.input),
        model: options.model,
        metadata: options.metadata,
        start_time: isoTime(options.startTime),
      } satisfies SpanCreateBody),
    );
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Starts a child span. */
  startSpan(options: SpanOptions): Span {
    return new Span(this.trace, this, options);
  }

  /** Runs `fn` in a new child span (see {@link runInSpan}). */
  withSpan<T>(options: SpanOptions, fn: (span: Span) => T | Promise<T>): Promise<T> {
    return runInSpan(this.startSpan(options), fn);
  }

  /** Sends fields recorded before the end (output so far, tokens, ...). */
  update(fields: SpanUpdate): void {
    this.trace.recorder.guard('span.update', () => {
      this.trace.recorder.emit(this.trace.state, 'span.update', this.id, this.updateBody(fields));
    });
  }

  /** Ends the span (default status `ok`). Later calls are ignored. */
  end(fields: SpanEnd = {}): void {
    if (this.ended) return;
    this.ended = true;
    const status = fields.status === 'error' ? 'error' : 'ok';
    this.trace.recorder.guard('span.end', () => {
      this.trace.recorder.emit(this.trace.state, 'span.update', this.id, {
        ...this.updateBody(fields),
        status,
        end_time: isoTime(fields.endTime),
      } satisfies SpanUpdateBody);
    });
    this.ownedTrace?.end({ status: status === 'error' ? 'error' : 'completed', output: fields.output });
  }

  private updateBody(fields: SpanUpdate): SpanUpdateBody {
    const recorder = this.trace.recorder;
    const total =
      fields.totalTokens ??
      (fields.promptTokens !== undefined && fields.completionTokens !== undefined
        ? fields.promptTokens + fields.completionTokens
        : undefined);
    if (fields.metadata) this.metadata = { ...this.metadata, ...fields.metadata };
    return {
      name: fields.name,
      input: recorder.cap(fields.input),
      output: recorder.cap(fields.output),
      status: fields.status,
      model: fields.model,
      prompt_tokens: fields.promptTokens,
      completion_tokens: fields.completionTokens,
      total_tokens: total,
      metadata: fields.metadata ? this.metadata : undefined,
    };
  }
}

/**
 * Runs `fn` with `span` as the active span, so spans started inside (by `withSpan`, the
 * integrations, ...) nest under it. Success ends the span `ok` with the return value as
 * output (unless `fn` already ended it); a throw ends it `error` and is rethrown as is.
 */
export async function runInSpan<T>(span: Span, fn: (span: Span) => T | Promise<T>): Promise<T> {
  const scope = { owner: span.trace.recorder, trace: span.trace, span };
  let result: T;
  try {
    result = await activeScope.run(scope, () => fn(span));
  } catch (err) {
    span.end({ status: 'error', output: errorOutput(err) });
    throw err;
  }
  span.end({ status: 'ok', output: result });
  return result;
}

/** How a thrown value is recorded as an output. */
export function errorOutput(err: unknown): { error: { name: string; message: string } } {
  if (err instanceof Error) return { error: { name: err.name, message: err.message } };
  return { error: { name: 'Error', message: typeof err === 'string' ? err : String(err) } };
}

/** A caller's bad Date must not throw (toISOString does on an invalid one): use now instead. */
function isoTime(date: Date | undefined): string {
  return date instanceof Date && !Number.isNaN(date.getTime()) ? date.toISOString() : new Date().toISOString();
}

/** Plain-JS callers may pass anything; a missing name must not throw later. */
function normalizeOptions<T extends { name: string }>(options: T, fallbackName: string): T {
  if (!options || typeof options !== 'object') return { name: String(options ?? fallbackName) } as T;
  return typeof options.name === 'string' ? options : { ...options, name: String(options.name ?? fallbackName) };
}
