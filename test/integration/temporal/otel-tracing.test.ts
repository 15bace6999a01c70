import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { api } from '../../helpers/auth';
import { TEXT_PARTS } from '../../helpers/fake-upstream';
import { startProxyHarness, type ProxyHarness } from '../proxy/harness';
import { waitUntil } from '../webhooks/fixtures';
import type { LinkWith } from './traced-workflow';

const run = promisify(execFile);
const PROGRAM = path.join(__dirname, 'traced-program.ts');
const TSX = path.join(__dirname, '../../../node_modules/.bin/tsx');

type SpanRow = { id: string; name: string; parent_span_id: string | null };

/**
 * docs/temporal-tracing.md end to end: a customer's program (traced-program.ts, a child process)
 * runs a workflow with two activities on the real dev server, traced by
 * `@temporalio/interceptors-opentelemetry` and exported by the OpenTelemetry JS SDK 2.x OTLP
 * exporter to our POST /v1/traces; one activity calls the model through our proxy with the real
 * `openai` client (fake upstream), linked by a W3C traceparent or by the SDK's traceLinkHeaders().
 */
describe('a Temporal workflow traced with OpenTelemetry into the gateway', () => {
  let h: ProxyHarness;
  let runs: { linkWith: LinkWith; traceId: string; answer: string }[];

  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'] });
    const { stdout } = await run(TSX, [PROGRAM], {
      env: {
        PATH: process.env.PATH ?? '',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${h.app.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: `Authorization=Bearer%20${h.tenant.fullKey}`,
        OTEL_SERVICE_NAME: 'support-agent-worker',
        OTEL_LOG_LEVEL: 'ERROR',
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
        TASK_QUEUE: `traced-${randomBytes(4).toString('hex')}`,
        GATEWAY_PROXY_URL: `${h.base('openai')}/v1`,
        GATEWAY_API_KEY: h.tenant.fullKey,
      },
      timeout: 60_000,
    });
    runs = JSON.parse(stdout.trim().split('\n').pop()!);
  }, 90_000);
  afterAll(() => h?.stop());

  async function readTrace(traceId: string) {
    return waitUntil(
      async () => {
        const r = await api(h.app, 'GET', `/api/v1/traces/${traceId}`, { token: h.tenant.fullKey });
        return r.status === 200 && r.body.data.span_count >= 7
          ? (r.body.data as { name: string; status: string; span_count: number; spans: SpanRow[] })
          : null;
      },
      15_000,
      `trace ${traceId} and its spans`,
    );
  }

  it.each(['traceparent', 'sdk'] as const)(
    'one connected trace with a span per activity; the model call is linked to its activity span (%s)',
    async (linkWith) => {
      const { traceId, answer } = runs.find((r) => r.linkWith === linkWith)!;
      expect(answer).toBe(TEXT_PARTS.join(''));
      const t = await readTrace(traceId);
      expect(t).toMatchObject({ name: 'support-agent', status: 'completed', span_count: 7 });
      const byName = new Map(t.spans.map((s) => [s.name, s]));
      const parentName = (name: string) => t.spans.find((s) => s.id === byName.get(name)?.parent_span_id)?.name;
      // One trace, every parent in it: root → StartWorkflow → RunWorkflow → StartActivity → RunActivity.
      expect(byName.get('support-agent')!.parent_span_id).toBeNull();
      expect(parentName('StartWorkflow:supportAgentWorkflow')).toBe('support-agent');
      expect(parentName('RunWorkflow:supportAgentWorkflow')).toBe('StartWorkflow:supportAgentWorkflow');
      for (const activity of ['retrieveDocs', 'answerWithModel']) {
        expect(parentName(`StartActivity:${activity}`)).toBe('RunWorkflow:supportAgentWorkflow');
        expect(parentName(`RunActivity:${activity}`)).toBe(`StartActivity:${activity}`);
      }
      // The proxied request row points at the activity span that made the call.
      const [row] = await h.rows(1, { trace_id: traceId });
      expect(row).toMatchObject({
        provider: 'openai',
        model: 'gpt-4o-mini',
        status_code: 200,
        span_id: byName.get('RunActivity:answerWithModel')!.id,
      });
    },
  );

  it('sends the provider no x-service-* header; a traceparent is forwarded as it came', () => {
    const [viaTraceparent, viaSdk] = h.upstream.requests;
    expect(viaTraceparent!.headers.traceparent).toMatch(new RegExp(`^00-${runs[0]!.traceId}-[0-9a-f]{16}-01$`));
    expect(viaSdk!.headers.traceparent).toBeUndefined();
    for (const r of h.upstream.requests)
      expect(Object.keys(r.headers).filter((k) => k.startsWith('x-service-'))).toEqual([]);
  });
});
