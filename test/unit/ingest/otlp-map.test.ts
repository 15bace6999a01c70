import {
  decodeJson,
  decodeProtobuf,
  decodeResponse,
  decodeStatus,
  encodeRequest,
  encodeResponse,
  encodeStatus,
  OtlpDecodeError,
} from '../../../src/ingest/otlp/decode';
import { mapGenAi } from '../../../src/ingest/otlp/genai';
import { mapExportRequest } from '../../../src/ingest/otlp/map';
import { nanosToIso, int64ToNumber } from '../../../src/ingest/otlp/values';
import type { IngestOp } from '../../../src/ingest/types';
import { exportRequest, exportRequestJson, hex, span } from './otlp-fixtures';

const MB = 1024 * 1024;
const byId = (ops: IngestOp[], kind: IngestOp['op'], id: string) => ops.find((o) => o.op === kind && o.id === id);

describe('OTLP decoding (generated protobuf code)', () => {
  it('decodes a binary ExportTraceServiceRequest and maps ids, times, parent links and status', () => {
    const traceId = hex(16);
    const root = hex(8);
    const child = hex(8);
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const body = encodeRequest(
      exportRequest([
        span({
          traceId,
          spanId: child,
          parentSpanId: root,
          name: 'retrieve',
          startMs: t0 + 1.5,
          endMs: t0 + 20.25,
          status: { code: 2, message: 'boom' },
        }),
        span({ traceId, spanId: root, name: 'agent run', startMs: t0, endMs: t0 + 30 }),
      ]),
    );
    const { ops, rejected, accepted } = mapExportRequest(decodeProtobuf(body), MB);
    expect(rejected).toBe(0);
    expect(accepted).toBe(2);
    const trace = byId(ops, 'trace.create', traceId)!;
    expect(trace.fields).toMatchObject({
      name: 'agent run',
      start_time: '2026-03-01T10:00:00.000000Z',
      end_time: '2026-03-01T10:00:00.030000Z',
      status: 'completed',
    });
    expect((trace.fields.metadata as { resource: unknown }).resource).toEqual({ 'service.name': 'unit' });
    const c = byId(ops, 'span.create', child)!;
    expect(c.fields).toMatchObject({
      trace_id: traceId,
      parent_span_id: root,
      status: 'error',
      start_time: '2026-03-01T10:00:00.001500Z',
      end_time: '2026-03-01T10:00:00.020250Z',
    });
    expect(c.fields.metadata).toMatchObject({
      status_message: 'boom',
      kind: 'INTERNAL',
      scope: { name: 'test-scope', version: '1.0.0' },
      service_name: 'unit',
    });
    expect(byId(ops, 'span.create', root)!.fields).not.toHaveProperty('parent_span_id');
  });

  it('decodes OTLP/JSON with hex ids, string nanoseconds and integer enums the same way', () => {
    const traceId = hex(16);
    const rootId = hex(8);
    const childId = hex(8);
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const spans = [
      { traceId, spanId: rootId, name: 'root', startMs: t0, endMs: t0 + 5, status: { code: 2 } },
      {
        traceId,
        spanId: childId,
        parentSpanId: rootId,
        name: 'child',
        startMs: t0 + 1,
        endMs: t0 + 2,
        attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 3 },
      },
    ];
    const body = Buffer.from(JSON.stringify(exportRequestJson(spans)));
    const { ops, rejected } = mapExportRequest(decodeJson(body), MB);
    expect(rejected).toBe(0);
    expect(byId(ops, 'trace.create', traceId)!.fields).toMatchObject({ name: 'root', status: 'error' });
    expect(byId(ops, 'span.create', childId)!.fields).toMatchObject({
      parent_span_id: rootId,
      span_type: 'llm',
      prompt_tokens: 3,
      total_tokens: 3,
    });
  });

  it('refuses undecodable bodies with a decode error', () => {
    expect(() => decodeProtobuf(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]))).toThrow(OtlpDecodeError);
    expect(() => decodeJson(Buffer.from('{"resourceSpans": [ {'))).toThrow(OtlpDecodeError);
    expect(() => decodeJson(Buffer.from('[1,2]'))).toThrow(OtlpDecodeError);
    expect(() => decodeJson(Buffer.from('{"resourceSpans": "nope"}'))).toThrow(OtlpDecodeError);
  });

  it('rejects invalid spans one by one and keeps the valid ones (partial success)', () => {
    const traceId = hex(16);
    const good = hex(8);
    const t0 = Date.now();
    const body = Buffer.from(
      JSON.stringify(
        exportRequestJson([
          { traceId, spanId: good, name: 'ok', startMs: t0, endMs: t0 + 1 },
          { traceId: 'zz', spanId: hex(8), name: 'bad trace id', startMs: t0, endMs: t0 + 1 },
          { traceId: '0'.repeat(32), spanId: hex(8), name: 'zero trace id', startMs: t0, endMs: t0 + 1 },
          { traceId, spanId: hex(4), name: 'short span id', startMs: t0, endMs: t0 + 1 },
          { traceId, spanId: hex(8), name: 'ends before start', startMs: t0, endMs: t0 - 10 },
          { traceId, spanId: hex(8), name: 'no start', startMs: 0, endMs: t0 },
          { traceId, spanId: hex(8), parentSpanId: 'abcd', name: 'bad parent', startMs: t0, endMs: t0 + 1 },
        ]),
      ),
    );
    const r = mapExportRequest(decodeJson(body), MB);
    expect(r.accepted).toBe(1);
    expect(r.rejected).toBe(6);
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors.length).toBeLessThanOrEqual(5);
    expect(r.ops.map((o) => o.id)).toContain(good);
  });

  it('truncates oversized content instead of refusing the span', () => {
    const traceId = hex(16);
    const id = hex(8);
    const big = 'x'.repeat(5000);
    const body = encodeRequest(
      exportRequest([
        span({
          traceId,
          spanId: id,
          parentSpanId: hex(8),
          name: 'llm',
          startMs: Date.now(),
          endMs: Date.now() + 1,
          attrs: { 'gen_ai.prompt': big },
        }),
      ]),
    );
    const { ops } = mapExportRequest(decodeProtobuf(body), 2048);
    expect(ops[0]!.fields.input).toMatchObject({ __truncated: true, originalBytes: 5002 });
  });

  it('encodes responses and errors in the request encoding', () => {
    const ok = encodeResponse({}, 'protobuf') as Buffer;
    expect(decodeResponse(ok).partialSuccess ?? null).toBeNull();
    const partial = decodeResponse(
      encodeResponse({ partialSuccess: { rejectedSpans: 2, errorMessage: 'bad ids' } }, 'protobuf') as Buffer,
    );
    expect(int64ToNumber(partial.partialSuccess!.rejectedSpans as never)).toBe(2);
    expect(partial.partialSuccess!.errorMessage).toBe('bad ids');
    expect(
      JSON.parse(encodeResponse({ partialSuccess: { rejectedSpans: 2, errorMessage: 'x' } }, 'json') as string),
    ).toEqual({ partialSuccess: { rejectedSpans: 2, errorMessage: 'x' } });
    expect(JSON.parse(encodeResponse({}, 'json') as string)).toEqual({});
    const status = decodeStatus(encodeStatus({ code: 3, message: 'nope' }, 'protobuf') as Buffer);
    expect(status).toMatchObject({ code: 3, message: 'nope' });
  });

  it('converts nanoseconds to microsecond ISO strings and refuses zero', () => {
    expect(nanosToIso('1700000000123456789')).toBe('2023-11-14T22:13:20.123456Z');
    expect(nanosToIso({ low: 0, high: 0, unsigned: true })).toBeNull();
    expect(nanosToIso('abc')).toBeNull();
  });
});

describe('gen_ai semantic conventions', () => {
  it('maps operation names to span types', () => {
    const type = (attrs: Record<string, unknown>) => mapGenAi(attrs, []).spanType;
    expect(type({ 'gen_ai.operation.name': 'chat' })).toBe('llm');
    expect(type({ 'gen_ai.operation.name': 'text_completion' })).toBe('llm');
    expect(type({ 'gen_ai.operation.name': 'generate_content' })).toBe('llm');
    expect(type({ 'gen_ai.operation.name': 'embeddings' })).toBe('embedding');
    expect(type({ 'gen_ai.operation.name': 'execute_tool' })).toBe('tool');
    expect(type({ 'gen_ai.operation.name': 'invoke_agent' })).toBe('agent');
    expect(type({ 'gen_ai.operation.name': 'create_agent' })).toBe('agent');
    expect(type({ 'openinference.span.kind': 'RETRIEVER' })).toBe('retrieval');
    expect(type({ 'openinference.span.kind': 'CHAIN' })).toBe('chain');
    expect(type({ 'traceloop.span.kind': 'workflow' })).toBe('chain');
    expect(type({ 'traceloop.span.kind': 'tool' })).toBe('tool');
    expect(type({ 'gen_ai.request.model': 'gpt-4o' })).toBe('llm');
    expect(type({ 'db.system': 'pinecone' })).toBe('retrieval');
    expect(type({ 'http.method': 'GET' })).toBe('other');
  });

  it('reads the model (response over request) and token usage in current and older names', () => {
    const g = mapGenAi(
      {
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 7,
      },
      [],
    );
    expect(g).toMatchObject({ model: 'gpt-4o-2024-08-06', promptTokens: 12, completionTokens: 7, totalTokens: 19 });
    const old = mapGenAi(
      {
        'gen_ai.request.model': 'gpt-4',
        'gen_ai.usage.prompt_tokens': 5,
        'gen_ai.usage.completion_tokens': 6,
        'llm.usage.total_tokens': 20,
      },
      [],
    );
    expect(old).toMatchObject({ model: 'gpt-4', promptTokens: 5, completionTokens: 6, totalTokens: 20 });
    expect(mapGenAi({ 'gen_ai.usage.input_tokens': -3 }, []).promptTokens).toBeUndefined();
  });

  it('takes content from gen_ai.input/output.messages (JSON strings) and leaves it out of the metadata', () => {
    const messages = [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }];
    const g = mapGenAi(
      {
        'gen_ai.input.messages': JSON.stringify(messages),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [] }]),
      },
      [],
    );
    expect(g.input).toEqual(messages);
    expect(g.output).toEqual([{ role: 'assistant', parts: [] }]);
    expect([...g.consumedKeys].sort()).toEqual(['gen_ai.input.messages', 'gen_ai.output.messages']);
  });

  it('takes content from gen_ai.prompt / gen_ai.completion and their indexed form', () => {
    expect(mapGenAi({ 'gen_ai.prompt': 'plain prompt', 'gen_ai.completion': 'plain answer' }, [])).toMatchObject({
      input: 'plain prompt',
      output: 'plain answer',
    });
    const g = mapGenAi(
      {
        'gen_ai.prompt.0.role': 'system',
        'gen_ai.prompt.0.content': 'be brief',
        'gen_ai.prompt.1.role': 'user',
        'gen_ai.prompt.1.content': 'hi',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'hello',
      },
      [],
    );
    expect(g.input).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(g.output).toEqual([{ role: 'assistant', content: 'hello' }]);
  });

  it('takes content from span events (message events, choice, inference details)', () => {
    const g = mapGenAi({}, [
      { name: 'gen_ai.system.message', attributes: { content: 'be brief', 'gen_ai.system': 'openai' } },
      { name: 'gen_ai.user.message', attributes: { content: 'hi' } },
      {
        name: 'gen_ai.choice',
        attributes: { index: 0, finish_reason: 'stop', message: '{"role":"assistant","content":"hello"}' },
      },
    ]);
    expect(g.input).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(g.output).toEqual({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } });
    expect([...g.consumedEvents]).toEqual([0, 1, 2]);
    const d = mapGenAi({}, [
      {
        name: 'gen_ai.client.inference.operation.details',
        attributes: {
          'gen_ai.input.messages': '[{"role":"user"}]',
          'gen_ai.output.messages': '[{"role":"assistant"}]',
        },
      },
    ]);
    expect(d).toMatchObject({ input: [{ role: 'user' }], output: [{ role: 'assistant' }] });
  });

  it('finds session and user ids', () => {
    expect(mapGenAi({ 'session.id': 's-1', 'user.id': 'u-1' }, [])).toMatchObject({ sessionId: 's-1', userId: 'u-1' });
    expect(mapGenAi({ 'gen_ai.conversation.id': 'conv-9', 'enduser.id': 'eu' }, [])).toMatchObject({
      sessionId: 'conv-9',
      userId: 'eu',
    });
  });

  it('sets trace session/user from the root, another span of the trace, or the resource', () => {
    const traceId = hex(16);
    const root = hex(8);
    const t0 = Date.now();
    const fromChild = mapExportRequest(
      decodeProtobuf(
        encodeRequest(
          exportRequest(
            [
              span({
                traceId,
                spanId: hex(8),
                parentSpanId: root,
                name: 'c',
                startMs: t0,
                endMs: t0 + 1,
                attrs: { 'gen_ai.conversation.id': 'conv-1' },
              }),
              span({ traceId, spanId: root, name: 'r', startMs: t0, endMs: t0 + 2 }),
            ],
            { 'service.name': 'svc', 'user.id': 'resource-user' },
          ),
        ),
      ),
      MB,
    );
    expect(byId(fromChild.ops, 'trace.create', traceId)!.fields).toMatchObject({
      session_id: 'conv-1',
      user_id: 'resource-user',
    });
  });
});
