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
