import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { temporalOtelPluginOptions, toSdk2Span, traceLinkHeaders, type SpanProcessorLike } from '../src';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceLinkHeaders', () => {
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => context.setGlobalContextManager(manager.enable()));
  afterAll(() => {
    context.disable();
  });

  it('links to the active OpenTelemetry span (e.g. a Temporal activity span)', async () => {
    const span = trace.wrapSpanContext({ traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED });
    const headers = await context.with(trace.setSpan(context.active(), span), async () => {
      await new Promise((r) => setTimeout(r, 1)); // still active across awaits
      return traceLinkHeaders();
    });
    expect(headers).toEqual({ 'x-service-trace-id': TRACE, 'x-service-span-id': SPAN });
  });

  it('takes an explicit span, and gives no headers without a valid one', () => {
    expect(traceLinkHeaders({ spanContext: () => ({ traceId: TRACE, spanId: SPAN }) })).toEqual({
      'x-service-trace-id': TRACE,
      'x-service-span-id': SPAN,
    });
    expect(traceLinkHeaders()).toEqual({}); // nothing active here
    expect(traceLinkHeaders(trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: SPAN, traceFlags: 0 }))).toEqual(
      {},
    );
  });
});

describe('Temporal workflow spans for an OpenTelemetry SDK 2.x pipeline', () => {
  // What @temporalio/interceptors-opentelemetry 1.x hands its span processor for a workflow span.
  const v1Span = () => ({
    name: 'RunWorkflow:supportAgentWorkflow',
    kind: 0,
    spanContext: () => ({ traceId: TRACE, spanId: SPAN, traceFlags: 1 }),
    parentSpanId: 'a1b2c3d4e5f60718',
    startTime: [1, 0],
    endTime: [2, 0],
    attributes: { workflowId: 'w' },
    instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
  });

  it('renames the 1.x fields 2.x exporters read, keeping everything else', () => {
    const s = toSdk2Span(v1Span()) as ReturnType<typeof v1Span> & {
      instrumentationScope: unknown;
      parentSpanContext: unknown;
    };
    expect(s.instrumentationScope).toEqual({ name: '@temporalio/interceptor-workflow' });
    expect(s.parentSpanContext).toEqual({ traceId: TRACE, spanId: 'a1b2c3d4e5f60718', traceFlags: 1 });
    expect(s.spanContext()).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    expect(s).toMatchObject({
      name: 'RunWorkflow:supportAgentWorkflow',
      attributes: { workflowId: 'w' },
      startTime: [1, 0],
    });
    const root = toSdk2Span({ ...v1Span(), parentSpanId: undefined }) as { parentSpanContext?: unknown };
    expect(root.parentSpanContext).toBeUndefined();
  });

  it('leaves 2.x spans alone and passes every call through to the wrapped processor', async () => {
    const v2 = {
      instrumentationScope: { name: 'x' },
      spanContext: () => ({ traceId: TRACE, spanId: SPAN, traceFlags: 1 }),
    };
    expect(toSdk2Span(v2)).toBe(v2);
    const seen: unknown[] = [];
    const calls: string[] = [];
    const inner: SpanProcessorLike = {
      onStart: () => void calls.push('start'),
      onEnd: (s) => void seen.push(s),
      forceFlush: async () => void calls.push('flush'),
      shutdown: async () => void calls.push('shutdown'),
    };
    const resource = { attributes: { 'service.name': 'worker' } };
    const opts = temporalOtelPluginOptions({ resource, spanProcessor: inner });
    expect(opts.resource).toBe(resource);
    const p = opts.spanProcessor as SpanProcessorLike;
    p.onStart({}, {});
    p.onEnd(v1Span());
    p.onEnd(v2);
    await p.forceFlush();
    await p.shutdown();
    expect(calls).toEqual(['start', 'flush', 'shutdown']);
    expect(seen[0]).toMatchObject({ instrumentationScope: { name: '@temporalio/interceptor-workflow' } });
    expect(seen[1]).toBe(v2);
  });
});
