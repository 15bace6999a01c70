/**
 * OTLP/HTTP trace payloads, decoded with the protobufjs static code that OpenTelemetry generated
 * from the official opentelemetry-proto files (shipped inside @opentelemetry/otlp-transformer up
 * to 0.216.0, installed under the alias `otlp-proto-root` and pinned exactly). No hand-written
 * schema: the same generated messages decode binary protobuf, validate JSON (`fromObject`) and
 * encode our ExportTraceServiceResponse. Why this rather than loading .proto files at run time:
 * no maintained npm package ships the current .proto files, and the generated decoder is plain
 * JavaScript (no reflection, no file loading at start-up). Fields newer than that version are
 * unknown to it and skipped, as protobuf's compatibility rules intend.
 */
// Both loaded on first use (require caches them): ~1 MB and ~7 MB of heap that a process not taking
// traces, or not answering one with an error, need not hold.
const v1 = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('otlp-proto-root/build/src/generated/root.js') as GeneratedRoot).opentelemetry.proto.collector.trace.v1;
// google.rpc.Status for error bodies (the generated OTLP root has no such message); Temporal's proto package ships it.
const rpcStatus = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('@temporalio/proto') as { google: { rpc: { Status: MessageType<RpcStatus> } } }).google.rpc.Status;

/** The decoded message shapes we read (protobufjs objects; every field may be missing or null). */
interface LongLike {
  low: number;
  high: number;
  unsigned?: boolean;
}
export type Int64 = LongLike | number | string | null | undefined;
export interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64;
  doubleValue?: number | null;
  arrayValue?: { values?: AnyValue[] | null } | null;
  kvlistValue?: { values?: KeyValue[] | null } | null;
  bytesValue?: Uint8Array | null;
}
export interface KeyValue {
  key?: string | null;
  value?: AnyValue | null;
}
interface OtlpEvent {
  timeUnixNano?: Int64;
  name?: string | null;
  attributes?: KeyValue[] | null;
}
interface OtlpLink {
  traceId?: Uint8Array | null;
  spanId?: Uint8Array | null;
  traceState?: string | null;
  attributes?: KeyValue[] | null;
}
export interface OtlpSpan {
  traceId?: Uint8Array | null;
  spanId?: Uint8Array | null;
  traceState?: string | null;
  parentSpanId?: Uint8Array | null;
  flags?: number | null;
  name?: string | null;
  kind?: number | null;
  startTimeUnixNano?: Int64;
  endTimeUnixNano?: Int64;
  attributes?: KeyValue[] | null;
  droppedAttributesCount?: number | null;
  events?: OtlpEvent[] | null;
  droppedEventsCount?: number | null;
  links?: OtlpLink[] | null;
  droppedLinksCount?: number | null;
  status?: { message?: string | null; code?: number | null } | null;
}
interface ScopeSpans {
  scope?: { name?: string | null; version?: string | null; attributes?: KeyValue[] | null } | null;
  spans?: OtlpSpan[] | null;
  schemaUrl?: string | null;
}
interface ResourceSpans {
  resource?: { attributes?: KeyValue[] | null } | null;
  scopeSpans?: ScopeSpans[] | null;
  schemaUrl?: string | null;
}
export interface ExportTraceServiceRequest {
  resourceSpans?: ResourceSpans[] | null;
}
export interface RpcStatus {
  code: number;
  message: string;
  details?: unknown[];
}

interface MessageType<T> {
  decode(buf: Uint8Array): T;
  encode(msg: T): { finish(): Uint8Array };
  fromObject(obj: unknown): T;
  toObject(msg: T, opts?: Record<string, unknown>): Record<string, unknown>;
}
interface GeneratedRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: MessageType<ExportTraceServiceRequest>;
            ExportTraceServiceResponse: MessageType<ExportTraceServiceResponse>;
          };
        };
      };
    };
  };
}
export interface ExportTraceServiceResponse {
  partialSuccess?: { rejectedSpans?: number; errorMessage?: string } | null;
}

export class OtlpDecodeError extends Error {}

export function decodeProtobuf(body: Uint8Array): ExportTraceServiceRequest {
  try {
    return v1().ExportTraceServiceRequest.decode(body);
  } catch (err) {
    throw new OtlpDecodeError(`Body is not a valid protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
  }
}

/**
 * OTLP/JSON: lowerCamelCase keys, trace and span ids as hex strings (not base64 as in the
 * canonical protobuf JSON mapping), enums as integers (names accepted too), 64-bit integers as
 * strings or numbers. Ids are turned into bytes, then the generated `fromObject` checks the shape.
 */
export function decodeJson(body: Uint8Array): ExportTraceServiceRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch (err) {
    throw new OtlpDecodeError(`Body is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new OtlpDecodeError('Body must be a JSON object (ExportTraceServiceRequest)');
  }
  hexIdsToBytes(parsed as Record<string, unknown>);
  try {
    return v1().ExportTraceServiceRequest.fromObject(parsed);
  } catch (err) {
    throw new OtlpDecodeError(`Body is not a valid ExportTraceServiceRequest: ${(err as Error).message}`);
  }
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
/** Invalid hex becomes a 1-byte id: wrong length for every id kind, so the span is rejected, not misread. */
const INVALID_ID = new Uint8Array(1);
function idBytes(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  return HEX.test(v) ? Buffer.from(v, 'hex') : INVALID_ID;
}

function hexIdsToBytes(req: Record<string, unknown>) {
  for (const rs of asArray(req.resourceSpans)) {
    for (const ss of asArray((rs as Record<string, unknown>)?.scopeSpans)) {
      for (const span of asArray((ss as Record<string, unknown>)?.spans)) {
        if (!span || typeof span !== 'object') continue;
        const s = span as Record<string, unknown>;
        s.traceId = idBytes(s.traceId);
        s.spanId = idBytes(s.spanId);
        s.parentSpanId = idBytes(s.parentSpanId);
        for (const link of asArray(s.links)) {
          if (!link || typeof link !== 'object') continue;
          const l = link as Record<string, unknown>;
          l.traceId = idBytes(l.traceId);
          l.spanId = idBytes(l.spanId);
        }
      }
    }
  }
}
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function encodeResponse(res: ExportTraceServiceResponse, format: 'protobuf' | 'json'): Buffer | string {
  if (format === 'json') {
    // OTLP/JSON: an empty object when everything was accepted.
    return JSON.stringify(res.partialSuccess ? { partialSuccess: res.partialSuccess } : {});
  }
  const { ExportTraceServiceResponse } = v1();
  return Buffer.from(ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(res)).finish());
}

export function encodeStatus(status: RpcStatus, format: 'protobuf' | 'json'): Buffer | string {
  if (format === 'json') return JSON.stringify({ code: status.code, message: status.message, details: [] });
  const Status = rpcStatus();
  return Buffer.from(Status.encode(Status.fromObject({ code: status.code, message: status.message })).finish());
}

/** For tests and the benchmark: the same generated messages, encoding a request. */
export function encodeRequest(req: unknown): Uint8Array {
  const { ExportTraceServiceRequest } = v1();
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(req)).finish();
}

export function decodeResponse(body: Uint8Array): ExportTraceServiceResponse {
  return v1().ExportTraceServiceResponse.decode(body);
}

export function decodeStatus(body: Uint8Array): RpcStatus {
  return rpcStatus().decode(body);
}
