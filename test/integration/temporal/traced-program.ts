/**
 * A customer's Temporal program as docs/temporal-tracing.md sets it up, run as a child process by
 * otel-tracing.test.ts (OpenTelemetry's exporters load node:http with a dynamic import, which
 * Jest's sandbox cannot run). OpenTelemetry is configured only through the standard variables
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_HEADERS, OTEL_SERVICE_NAME);
 * the program also reads TEMPORAL_ADDRESS, TASK_QUEUE, GATEWAY_PROXY_URL (…/proxy/openai/v1) and
 * GATEWAY_API_KEY. It runs the workflow once per way of linking the model call (W3C traceparent,
 * the SDK's traceLinkHeaders) and prints one JSON line: `[{linkWith, traceId, answer}]`.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { temporalOtelPluginOptions, traceLinkHeaders } from '../../../sdk/src/integrations/opentelemetry';
import type { AgentActivities, LinkWith } from './traced-workflow';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });

  // OpenTelemetry JS SDK 2.x: one export pipeline to the gateway's POST /v1/traces.
  const resource = resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'support-agent-worker' });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register(); // global tracer, AsyncLocalStorage context, W3C propagator
  // Temporal's interceptors (client, workflow, activity) in one plugin, its workflow spans into the same pipeline.
  const plugin = new OpenTelemetryPlugin(temporalOtelPluginOptions({ resource, spanProcessor: processor }));

  const openai = new OpenAI({ apiKey: env('GATEWAY_API_KEY'), baseURL: env('GATEWAY_PROXY_URL'), maxRetries: 0 });
  const activities: AgentActivities = {
    retrieveDocs: async (question) => [`shipping policy for: ${question}`],
    answerWithModel: async (question, docs, linkWith: LinkWith) => {
      // Inside the activity the active span is the activity's own (RunActivity:answerWithModel).
      const headers: Record<string, string> = {};
      if (linkWith === 'traceparent') propagation.inject(context.active(), headers);
      else Object.assign(headers, traceLinkHeaders());
      const messages = [
        { role: 'system' as const, content: docs.join('\n') },
        { role: 'user' as const, content: question },
      ];
      const r = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages }, { headers });
      return r.choices[0]!.message.content ?? '';
    },
  };

  const address = env('TEMPORAL_ADDRESS');
  const taskQueue = env('TASK_QUEUE');
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    workflowsPath: require.resolve('./traced-workflow'),
    activities,
    plugins: [plugin],
  });
  const client = new Client({ connection: await Connection.connect({ address }), plugins: [plugin] });
  const tracer = trace.getTracer('support-app');
  const runs: { linkWith: LinkWith; traceId: string; answer: string }[] = [];
  await worker.runUntil(async () => {
    for (const linkWith of ['traceparent', 'sdk'] as const) {
      // The app's own root span around the whole run: the workflow's spans become its children.
      await tracer.startActiveSpan('support-agent', async (root) => {
        const answer = await client.workflow.execute('supportAgentWorkflow', {
          taskQueue,
          workflowId: `support-${root.spanContext().traceId}`,
          args: ['Where is my order?', linkWith],
        });
        root.end();
        runs.push({ linkWith, traceId: root.spanContext().traceId, answer: answer as string });
      });
    }
  });
  await provider.shutdown(); // flushes the batch
  await client.connection.close();
  process.stdout.write(`${JSON.stringify(runs)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
