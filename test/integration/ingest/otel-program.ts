/**
 * An instrumented program for the OTLP tests, run as a child process (the OpenTelemetry exporters
 * load node:http with a dynamic import, which Jest's module sandbox cannot run). It is configured
 * the way docs/ingest.md tells users to: the standard environment variables
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_HEADERS and
 * OTEL_EXPORTER_OTLP_TRACES_COMPRESSION. Prints one JSON line: the trace ids and export results.
 *
 *   EXPORTER=proto|json  PROCESSOR=simple|batch  SCENARIO=agent|agent-fail|nested|export-twice
 */
import { context, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

async function agent(tracer: Tracer, fail: boolean): Promise<string> {
  return tracer.startActiveSpan(
    'support-agent',
    { attributes: { 'session.id': 'sess-otlp', 'user.id': 'user-42' } },
    async (root) => {
      await tracer.startActiveSpan(
        'chat gpt-4o-mini',
        {
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': 'openai',
            'gen_ai.request.model': 'gpt-4o-mini',
            'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
            'gen_ai.usage.input_tokens': 120,
            'gen_ai.usage.output_tokens': 30,
            'gen_ai.input.messages': JSON.stringify([
              { role: 'user', parts: [{ type: 'text', content: 'Where is my order?' }] },
            ]),
          },
        },
        async (llm) => {
          llm.addEvent('gen_ai.choice', {
            index: 0,
            finish_reason: 'stop',
            message: JSON.stringify({ role: 'assistant', content: 'Let me check.' }),
          });
          await new Promise((r) => setTimeout(r, 2));
          await tracer.startActiveSpan(
            'execute_tool lookup_order',
            {
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': 'lookup_order',
                'gen_ai.tool.call.arguments': '{"order":"A1"}',
              },
            },
            async (tool) => {
              await new Promise((r) => setTimeout(r, 1));
              tool.end();
            },
          );
          llm.end();
        },
      );
      const retrieval = tracer.startSpan('vector search', { attributes: { 'openinference.span.kind': 'RETRIEVER' } });
      retrieval.end();
      if (fail) root.setStatus({ code: SpanStatusCode.ERROR, message: 'agent gave up' });
      const id = root.spanContext().traceId;
      root.end();
      return id;
    },
  );
}

function nested(tracer: Tracer): string {
  const root = tracer.startSpan('manual-root');
  const ctx = trace.setSpan(context.active(), root);
  const child = tracer.startSpan('manual-child', {}, ctx);
  const grandchild = tracer.startSpan('manual-grandchild', {}, trace.setSpan(ctx, child));
  grandchild.end();
  child.end();
  root.end();
  return root.spanContext().traceId;
}

async function main() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter: SpanExporter = process.env.EXPORTER === 'json' ? new JsonExporter() : new ProtoExporter();
  const resource = resourceFromAttributes({ 'service.name': 'otlp-test' });
  const scenario = process.env.SCENARIO ?? 'agent';
  const out: { traceIds: string[]; exportResults: number[] } = { traceIds: [], exportResults: [] };

  if (scenario === 'export-twice') {
    // The exporter's own export call, twice with the same spans (what a retry after a lost response does).
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)] });
    out.traceIds.push(await agent(provider.getTracer('agent'), false));
    for (let i = 0; i < 2; i++) {
      out.exportResults.push(
        await new Promise<number>((resolve) => exporter.export(memory.getFinishedSpans(), (r) => resolve(r.code))),
      );
    }
    await exporter.shutdown();
  } else {
    const processor =
      process.env.PROCESSOR === 'batch'
        ? new BatchSpanProcessor(exporter, { scheduledDelayMillis: 20 })
        : new SimpleSpanProcessor(exporter);
    const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
    const tracer = provider.getTracer('agent', '1.0.0');
    if (scenario === 'nested') out.traceIds.push(nested(tracer));
    else out.traceIds.push(await agent(tracer, scenario === 'agent-fail'));
    await provider.forceFlush();
    await provider.shutdown();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
