/**
 * OpenTelemetry helpers for code traced with OpenTelemetry (e.g. Temporal workflows through
 * `@temporalio/interceptors-opentelemetry`) that exports its spans to the gateway's
 * `POST /v1/traces` and calls models through the gateway's proxy.
 *
 * Typed structurally and loaded lazily: `@opentelemetry/api` is an optional peer dependency,
 * needed only by `traceLinkHeaders()` without an argument.
 */

/** The slice of an OpenTelemetry span (or `SpanContext` holder) these helpers read. */
export interface SpanLike {
  spanContext(): { traceId: string; spanId: string };
}

const INVALID_TRACE = /^0+$/;

/** The active OpenTelemetry span, if `@opentelemetry/api` is installed and a span is active. */
function activeSpan(): SpanLike | undefined {
  try {
    const api = require('@opentelemetry/api') as { trace: { getActiveSpan(): SpanLike | undefined } };
    return api.trace.getActiveSpan();
  } catch {
    return undefined;
  }
}

/**
 * Headers that link a proxied model call to a span: `x-service-trace-id` and
 * `x-service-span-id` with the span's OpenTelemetry ids (lowercase hex, as the gateway's OTLP
 * ingest stores them). Default: the active span (inside a Temporal activity traced by the
 * interceptors, the activity's span). `{}` when there is none.
 *
 * ```ts
 * await openai.chat.completions.create(body, { headers: traceLinkHeaders() });
 * ```
 *
 * The gateway also reads a W3C `traceparent` (what `propagation.inject` and HTTP
 * instrumentation write); these headers win over it and, like every `x-service-*` header, are
 * not forwarded to the provider.
 */
export function traceLinkHeaders(span: SpanLike | undefined = activeSpan()): Record<string, string> {
  const ctx = span?.spanContext();
  if (!ctx || INVALID_TRACE.test(ctx.traceId) || INVALID_TRACE.test(ctx.spanId)) return {};
  return { 'x-service-trace-id': ctx.traceId, 'x-service-span-id': ctx.spanId };
}

/** A span processor, structurally (OpenTelemetry JS SDK 1.x or 2.x). */
export interface SpanProcessorLike {
  onStart(span: unknown, parentContext: unknown): void;
  onEnd(span: unknown): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

interface V1Span {
  spanContext(): { traceId: string; spanId: string; traceFlags: number };
  parentSpanId?: string;
  parentSpanContext?: unknown;
  instrumentationLibrary?: { name: string; version?: string; schemaUrl?: string };
  instrumentationScope?: unknown;
}

/**
 * A span in the shape OpenTelemetry JS SDK 2.x exporters read. `@temporalio/interceptors-opentelemetry`
 * 1.x records workflow spans with SDK 1.x inside the workflow sandbox and hands them over with
 * 1.x field names (`instrumentationLibrary`, `parentSpanId`): a 2.x OTLP exporter then throws on
 * the missing `instrumentationScope` (dropping the whole batch) or loses the parent.
 */
export function toSdk2Span<T>(span: T): T {
  const s = span as V1Span;
  if (s.instrumentationScope !== undefined || !s.instrumentationLibrary) return span;
  const ctx = s.spanContext();
  return {
    ...(span as object),
    spanContext: () => ctx,
    instrumentationScope: s.instrumentationLibrary,
    parentSpanContext:
      s.parentSpanContext ??
      (s.parentSpanId ? { traceId: ctx.traceId, spanId: s.parentSpanId, traceFlags: ctx.traceFlags } : undefined),
  } as T;
}

/**
 * Options for `new OpenTelemetryPlugin(…)` of `@temporalio/interceptors-opentelemetry` 1.x when
 * the rest of the process uses OpenTelemetry JS SDK 2.x: the plugin's workflow spans go through
 * `spanProcessor` (your export pipeline, e.g. the `BatchSpanProcessor` of your tracer provider)
 * converted to the 2.x shape. Typed loosely on purpose: the plugin's types name SDK 1.x classes
 * that a 2.x resource or processor cannot satisfy.
 *
 * ```ts
 * const exporter = new OTLPTraceExporter({ url: 'https://gateway.example.com/v1/traces', headers });
 * const processor = new BatchSpanProcessor(exporter);
 * new NodeTracerProvider({ resource, spanProcessors: [processor] }).register();
 * const plugin = new OpenTelemetryPlugin(temporalOtelPluginOptions({ resource, spanProcessor: processor }));
 * ```
 */
export function temporalOtelPluginOptions(o: { resource: unknown; spanProcessor: SpanProcessorLike }): {
  resource: never;
  spanProcessor: never;
} {
  const inner = o.spanProcessor;
  const spanProcessor: SpanProcessorLike = {
    onStart: (span, parentContext) => inner.onStart(span, parentContext),
    onEnd: (span) => inner.onEnd(toSdk2Span(span)),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
  return { resource: o.resource as never, spanProcessor: spanProcessor as never };
}
