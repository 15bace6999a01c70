import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeResponse, encodeRequest } from '../../../src/ingest/otlp/decode';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { exportRequest, exportRequestJson, hex, span } from '../../unit/ingest/otlp-fixtures';
import { subscribeTraceCompleted, traceCompletedEvents, waitFor } from './helpers';

const execFileAsync = promisify(execFile);

/**
 * OTLP/HTTP against the real server: the official OpenTelemetry exporters (protobuf and JSON,
 * with and without gzip) sending from an instrumented program, plus hand-built bodies for the
 * error paths (the refused requests: otlp-errors).
 */

const PROGRAM = path.join(__dirname, 'otel-program.ts');
const TSX = path.join(__dirname, '../../../node_modules/.bin/tsx');

interface ProgramRun {
  traceIds: string[];
  exportResults: number[];
}

/** Runs the instrumented program, configured only through the standard OTEL_* environment variables. */
async function runProgram(app: TestApp, key: string, env: Record<string, string>): Promise<ProgramRun> {
  const { stdout } = await execFileAsync(TSX, [PROGRAM], {
    env: {
      PATH: process.env.PATH ?? '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${app.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `Authorization=Bearer%20${key}`,
      OTEL_LOG_LEVEL: 'ERROR',
      ...env,
    },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as ProgramRun;
}

describe('OTLP /v1/traces', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    await subscribeTraceCompleted(app, t.orgId);
  });
  afterAll(() => app.stop());

  const headers = () => ({ Authorization: `Bearer ${t.fullKey}` });
  const getTrace = (id: string) => api(app, 'GET', `/api/v1/traces/${id}`, { token: t.fullKey });

  async function checkAgentTrace(traceId: string, status: 'completed' | 'error') {
    const res = await waitFor(async () => {
      const r = await getTrace(traceId);
      return r.status === 200 && r.body.data.span_count === 4 ? r : null;
    }, `trace ${traceId} with 4 spans`);
    const tr = res.body.data;
    expect(tr).toMatchObject({
      id: traceId,
      name: 'support-agent',
      status,
      session_id: 'sess-otlp',
      user_id: 'user-42',
      source: 'otlp',
      pending_create: false,
    });
    expect(tr.metadata.resource['service.name']).toBe('otlp-test');
    expect(tr.duration_ms).toBeGreaterThanOrEqual(0);
    const byName = Object.fromEntries(tr.spans.map((s: { name: string }) => [s.name, s]));
    const root = byName['support-agent'];
    const llm = byName['chat gpt-4o-mini'];
    const tool = byName['execute_tool lookup_order'];
    expect(root.parent_span_id).toBeNull();
    expect(llm).toMatchObject({
      parent_span_id: root.id,
      span_type: 'llm',
      model: 'gpt-4o-mini-2024-07-18',
      prompt_tokens: 120,
      completion_tokens: 30,
      total_tokens: 150,
      promptTokens: 120,
      status: 'ok',
      input: [{ role: 'user', parts: [{ type: 'text', content: 'Where is my order?' }] }],
      output: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Let me check.' } },
    });
    expect(llm.cost_usd).toBeGreaterThan(0);
    expect(llm.metadata.attributes).not.toHaveProperty('gen_ai.input.messages');
    expect(llm.metadata.attributes['gen_ai.provider.name']).toBe('openai');
    expect(tool).toMatchObject({ parent_span_id: llm.id, span_type: 'tool', input: { order: 'A1' } });
    expect(byName['vector search']).toMatchObject({ parent_span_id: root.id, span_type: 'retrieval' });
    expect(root.status).toBe(status === 'error' ? 'error' : 'ok');
    // nested tree: root → (llm → tool), retrieval
    expect(tr.tree).toHaveLength(1);
    expect(tr.tree[0].id).toBe(root.id);
    const kids = tr.tree[0].children.map((c: { name: string }) => c.name).sort();
    expect(kids).toEqual(['chat gpt-4o-mini', 'vector search']);
    return tr;
  }

  it('accepts the protobuf exporter (SimpleSpanProcessor) and maps gen_ai spans', async () => {
    const run = await runProgram(app, t.fullKey, { EXPORTER: 'proto', PROCESSOR: 'simple' });
    const traceId = run.traceIds[0]!;
    await checkAgentTrace(traceId, 'completed');
    // trace.completed once the root span arrived (all OTLP spans arrive closed)
    const events = await traceCompletedEvents(app, traceId);
    expect(events).toHaveLength(1);
    expect(events[0]!.trace).toMatchObject({ id: traceId, status: 'completed' });
    expect(typeof events[0]!.trace.duration_ms).toBe('number');
    expect(Object.keys(events[0]!.trace).sort()).toEqual(['duration_ms', 'ended_at', 'id', 'status']);
  });

  it('accepts the protobuf exporter with gzip and a BatchSpanProcessor, and marks error traces', async () => {
    const run = await runProgram(app, t.fullKey, {
      EXPORTER: 'proto',
      PROCESSOR: 'batch',
      SCENARIO: 'agent-fail',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
    });
    const traceId = run.traceIds[0]!;
    const tr = await checkAgentTrace(traceId, 'error');
    expect(tr.spans.find((s: { name: string }) => s.name === 'support-agent').metadata.status_message).toBe(
      'agent gave up',
    );
    expect((await traceCompletedEvents(app, traceId)).map((e) => e.trace.status)).toEqual(['error']);
  });

  it.each(['none', 'gzip'])('accepts the JSON exporter (compression %s)', async (compression) => {
    const run = await runProgram(app, t.fullKey, {
      EXPORTER: 'json',
      PROCESSOR: 'batch',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: compression,
    });
    await checkAgentTrace(run.traceIds[0]!, 'completed');
  });

  it('reports export success to the exporter, and a retried export stores nothing twice', async () => {
    const run = await runProgram(app, t.fullKey, { EXPORTER: 'proto', SCENARIO: 'export-twice' });
    expect(run.exportResults).toEqual([0, 0]); // ExportResultCode.SUCCESS
    const traceId = run.traceIds[0]!;
    await checkAgentTrace(traceId, 'completed');
    const count = await app.database
      .db('spans')
      .where({ project_id: t.projectId, trace_id: traceId })
      .count<{ count: number }[]>('* as count');
    expect(Number(count[0]!.count)).toBe(4);
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(1);
  });

  it('reports failure to the exporter when the key is refused', async () => {
    const run = await runProgram(app, t.publicKey, { EXPORTER: 'proto', SCENARIO: 'export-twice' });
    expect(run.exportResults).toEqual([1, 1]); // ExportResultCode.FAILED
  });

  it('stores children exported before their root, and completes the trace when the root arrives', async () => {
    const traceId = hex(16);
    const rootId = hex(8);
    const t0 = Date.now();
    const post = (body: Uint8Array) =>
      fetch(`${app.url}/v1/traces`, {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/x-protobuf' },
        body,
      });
    const child = await post(
      encodeRequest(
        exportRequest([
          span({ traceId, spanId: hex(8), parentSpanId: rootId, name: 'early child', startMs: t0 + 1, endMs: t0 + 2 }),
        ]),
      ),
    );
    expect(child.status).toBe(200);
    const placeholder = await getTrace(traceId);
    expect(placeholder.body.data).toMatchObject({ pending_create: true, status: 'running', span_count: 1 });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(0);
    const root = await post(
      encodeRequest(exportRequest([span({ traceId, spanId: rootId, name: 'late root', startMs: t0, endMs: t0 + 10 })])),
    );
    expect(root.status).toBe(200);
    expect((await getTrace(traceId)).body.data).toMatchObject({
      name: 'late root',
      status: 'completed',
      pending_create: false,
      span_count: 2,
      duration_ms: 10,
    });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(1);
  });

  it('answers partial_success for invalid spans, in the request encoding, and stores the valid ones', async () => {
    const traceId = hex(16);
    const good = hex(8);
    const t0 = Date.now();
    const spans = [
      { traceId, spanId: good, name: 'valid', startMs: t0, endMs: t0 + 1 },
      { traceId, spanId: 'not-hex!', name: 'bad id', startMs: t0, endMs: t0 + 1 },
      { traceId, spanId: hex(8), name: 'backwards', startMs: t0, endMs: t0 - 5 },
    ];
    const jsonRes = await fetch(`${app.url}/v1/traces`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/json' },
      body: JSON.stringify(exportRequestJson(spans)),
    });
    expect(jsonRes.status).toBe(200);
    expect(jsonRes.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await jsonRes.json()) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    expect(body.partialSuccess.rejectedSpans).toBe(2);
    expect(body.partialSuccess.errorMessage).toMatch(/spanId/);
    expect((await getTrace(traceId)).body.data.spans.map((s: { id: string }) => s.id)).toEqual([good]);

    const traceId2 = hex(16);
    const protoRes = await fetch(`${app.url}/v1/traces`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-protobuf' },
      body: encodeRequest(
        exportRequest([
          span({ traceId: traceId2, spanId: hex(8), name: 'ok', startMs: t0, endMs: t0 + 1 }),
          span({ traceId: traceId2, spanId: hex(8), name: 'no start', startMs: 0, endMs: t0 }),
        ]),
      ),
    });
    expect(protoRes.status).toBe(200);
    expect(protoRes.headers.get('content-type')).toMatch(/^application\/x-protobuf/);
    const decoded = decodeResponse(new Uint8Array(await protoRes.arrayBuffer()));
    expect(Number(decoded.partialSuccess!.rejectedSpans)).toBe(1);

    const fullOk = await fetch(`${app.url}/v1/traces`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/json' },
      body: JSON.stringify(exportRequestJson([spans[0]!])),
    });
    expect(await fullOk.json()).toEqual({});
  });

  it('keeps traces of different projects apart even with the same trace id', async () => {
    const other = await seedTenant(app);
    const traceId = hex(16);
    const t0 = Date.now();
    const send = (key: string, name: string) =>
      fetch(`${app.url}/v1/traces`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/x-protobuf' },
        body: encodeRequest(exportRequest([span({ traceId, spanId: hex(8), name, startMs: t0, endMs: t0 + 1 })])),
      });
    expect((await send(t.fullKey, 'mine')).status).toBe(200);
    expect((await send(other.fullKey, 'theirs')).status).toBe(200);
    expect((await getTrace(traceId)).body.data.name).toBe('mine');
    expect((await api(app, 'GET', `/api/v1/traces/${traceId}`, { token: other.fullKey })).body.data.name).toBe(
      'theirs',
    );
  });

  it('nests spans under explicit parent contexts', async () => {
    const run = await runProgram(app, t.fullKey, { EXPORTER: 'proto', SCENARIO: 'nested' });
    const tr = (await waitFor(async () => {
      const r = await getTrace(run.traceIds[0]!);
      return r.status === 200 && r.body.data.span_count === 3 && r.body.data;
    }, 'nested trace'))!;
    expect(tr.tree[0].name).toBe('manual-root');
    expect(tr.tree[0].children[0].children[0].name).toBe('manual-grandchild');
  });
});
