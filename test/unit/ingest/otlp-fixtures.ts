import { randomBytes } from 'node:crypto';

/** Builders for OTLP ExportTraceServiceRequest objects (protobufjs `fromObject` shape, byte ids). */

export const hex = (n: number) => randomBytes(n).toString('hex');

export type Attr = string | number | boolean | Attr[] | { [k: string]: Attr };

function anyValue(v: Attr): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: v } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { kvlistValue: { values: Object.entries(v).map(([key, x]) => ({ key, value: anyValue(x) })) } };
}

const kv = (attrs: Record<string, Attr>) =>
  Object.entries(attrs).map(([key, value]) => ({ key, value: anyValue(value) }));

export interface SpanSpec {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs?: number;
  attrs?: Record<string, Attr>;
  events?: { name: string; attrs?: Record<string, Attr> }[];
  status?: { code: number; message?: string };
  kind?: number;
}

const ms = (m: number) => (BigInt(Math.round(m * 1000)) * 1000n).toString();

export function span(s: SpanSpec): Record<string, unknown> {
  return {
    traceId: Buffer.from(s.traceId, 'hex'),
    spanId: Buffer.from(s.spanId, 'hex'),
    parentSpanId: s.parentSpanId ? Buffer.from(s.parentSpanId, 'hex') : undefined,
    name: s.name,
    kind: s.kind ?? 1,
    startTimeUnixNano: ms(s.startMs),
    endTimeUnixNano: s.endMs === undefined ? '0' : ms(s.endMs),
    attributes: kv(s.attrs ?? {}),
    events: (s.events ?? []).map((e) => ({ name: e.name, timeUnixNano: ms(s.startMs), attributes: kv(e.attrs ?? {}) })),
    status: s.status ?? { code: 0 },
  };
}

export function exportRequest(
  spans: Record<string, unknown>[],
  resource: Record<string, Attr> = { 'service.name': 'unit' },
) {
  return {
    resourceSpans: [
      {
        resource: { attributes: kv(resource) },
        scopeSpans: [{ scope: { name: 'test-scope', version: '1.0.0' }, spans }],
      },
    ],
  };
}

/** The same request in OTLP/JSON (hex ids, string nanos, integer enums). */
export function exportRequestJson(spans: SpanSpec[], resource: Record<string, Attr> = { 'service.name': 'unit' }) {
  return {
    resourceSpans: [
      {
        resource: { attributes: kv(resource) },
        scopeSpans: [
          {
            scope: { name: 'test-scope' },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind ?? 1,
              startTimeUnixNano: ms(s.startMs),
              endTimeUnixNano: s.endMs === undefined ? '0' : ms(s.endMs),
              attributes: kv(s.attrs ?? {}),
              events: (s.events ?? []).map((e) => ({
                name: e.name,
                timeUnixNano: ms(s.startMs),
                attributes: kv(e.attrs ?? {}),
              })),
              status: s.status ?? {},
            })),
          },
        ],
      },
    ],
  };
}
