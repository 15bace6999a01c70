import { MAX_LABEL, MAX_SPAN_NAME, MAX_TRACE_NAME, truncateJson } from '../limits';
import type { IngestOp, SpanFields, TraceFields } from '../types';
import type { ExportTraceServiceRequest, OtlpSpan } from './decode';
import { mapGenAi, SESSION_KEYS, USER_KEYS, type SpanEventLike } from './genai';
import { attributes, bytesToHex, isoConverter, isZero, nanosToIso, nanosToMicros } from './values';

/**
 * OTLP spans → our operations. Every span becomes a span create (OTLP only exports ended spans,
 * so they arrive closed). A span without a parent is the trace's root: it also creates the trace
 * (name, times, status, input/output from the root span; session and user from the root's
 * attributes, else from another span of the same trace in the request, else from the resource),
 * which makes the trace ended, so trace.completed follows once no span of it is open.
 */

const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUS_ERROR = 2;
const MAX_REPORTED_ERRORS = 5;

export interface OtlpMapResult {
  ops: IngestOp[];
  accepted: number;
  rejected: number;
  /** Distinct reasons for rejected spans (first few), for partial_success.error_message. */
  errors: string[];
}

export function mapExportRequest(req: ExportTraceServiceRequest, maxFieldBytes: number): OtlpMapResult {
  const toIso = isoConverter();
  const spanOps: IngestOp[] = [];
  const roots: {
    traceId: string;
    span: OtlpSpan;
    fields: SpanFields & { start_time: string };
    resource: Record<string, unknown>;
    session?: string;
    user?: string;
  }[] = [];
  // First session/user id seen per trace in this request (roots may not carry them).
  const traceLabels = new Map<string, { session?: string; user?: string }>();
  const errors = new Set<string>();
  let rejected = 0;
  const reject = (why: string) => {
    rejected++;
    if (errors.size < MAX_REPORTED_ERRORS) errors.add(why);
  };

  for (const rs of req.resourceSpans ?? []) {
    const resource = attributes(rs?.resource?.attributes);
    const resourceSession = pickString(resource, SESSION_KEYS);
    const resourceUser = pickString(resource, USER_KEYS);
    for (const ss of rs?.scopeSpans ?? []) {
      const scope = ss?.scope
        ? { name: ss.scope.name ?? '', ...(ss.scope.version ? { version: ss.scope.version } : {}) }
        : undefined;
      for (const span of ss?.spans ?? []) {
        if (!span) continue;
        const traceIdBytes = span.traceId;
        const spanIdBytes = span.spanId;
        if (!traceIdBytes || traceIdBytes.length !== 16 || isZero(traceIdBytes)) {
          reject('traceId must be 16 bytes (32 hex characters) and not all zero');
          continue;
        }
        if (!spanIdBytes || spanIdBytes.length !== 8 || isZero(spanIdBytes)) {
          reject('spanId must be 8 bytes (16 hex characters) and not all zero');
          continue;
        }
        const parent = span.parentSpanId;
        if (parent && parent.length !== 0 && parent.length !== 8) {
          reject('parentSpanId must be empty or 8 bytes (16 hex characters)');
          continue;
        }
        const start = toIso(span.startTimeUnixNano);
        if (!start) {
          reject('startTimeUnixNano is missing or out of range');
          continue;
        }
        const endMicros = nanosToMicros(span.endTimeUnixNano);
        const end = endMicros !== 0 ? toIso(span.endTimeUnixNano) : null;
        if (endMicros !== 0 && (!end || endMicros < nanosToMicros(span.startTimeUnixNano))) {
          reject('endTimeUnixNano is before startTimeUnixNano or out of range');
          continue;
        }

        const traceId = bytesToHex(traceIdBytes);
        const spanId = bytesToHex(spanIdBytes);
        const parentId = parent && parent.length === 8 && !isZero(parent) ? bytesToHex(parent) : undefined;
        const attrs = attributes(span.attributes);
        const events: SpanEventLike[] = (span.events ?? []).map((e) => ({
          name: e?.name ?? '',
          attributes: attributes(e?.attributes),
        }));
        const g = mapGenAi(attrs, events);

        const labels = traceLabels.get(traceId) ?? {};
        labels.session ??= g.sessionId ?? resourceSession;
        labels.user ??= g.userId ?? resourceUser;
        traceLabels.set(traceId, labels);

        const metadata = spanMetadata(span, attrs, events, g.consumedKeys, g.consumedEvents, resource, scope);
        const isError = span.status?.code === STATUS_ERROR;
        const fields: SpanFields & {
          trace_id: string;
          name: string;
          start_time: string;
          span_type: typeof g.spanType;
        } = {
          trace_id: traceId,
          name: (span.name ?? '').slice(0, MAX_SPAN_NAME),
          span_type: g.spanType,
          status: isError ? 'error' : 'ok',
          start_time: start,
          metadata: limitMetadata(metadata, maxFieldBytes),
        };
        // assigned only when present: absent fields must stay absent ("not sent"), not undefined-valued keys
        if (end) fields.end_time = end;
        if (parentId) fields.parent_span_id = parentId;
        if (g.model) fields.model = g.model;
        if (g.promptTokens !== undefined) fields.prompt_tokens = g.promptTokens;
        if (g.completionTokens !== undefined) fields.completion_tokens = g.completionTokens;
        if (g.totalTokens !== undefined) fields.total_tokens = g.totalTokens;
        if (g.input !== undefined) fields.input = truncateJson(g.input, maxFieldBytes);
        if (g.output !== undefined) fields.output = truncateJson(g.output, maxFieldBytes);
        spanOps.push({ op: 'span.create', id: spanId, fields });
        if (!parentId) roots.push({ traceId, span, fields, resource, session: g.sessionId, user: g.userId });
      }
    }
  }

  const traceOps: IngestOp[] = roots.map((r) => {
    const labels = traceLabels.get(r.traceId) ?? {};
    const session = r.session ?? labels.session;
    const user = r.user ?? labels.user;
    const fields: TraceFields & { name: string; start_time: string } = {
      name: (r.span.name ?? '').slice(0, MAX_TRACE_NAME) || 'unnamed',
      start_time: r.fields.start_time,
      ...(r.fields.end_time
        ? {
            end_time: r.fields.end_time,
            status: r.fields.status === 'error' ? ('error' as const) : ('completed' as const),
          }
        : {}),
      ...(session ? { session_id: session.slice(0, MAX_LABEL) } : {}),
      ...(user ? { user_id: user.slice(0, MAX_LABEL) } : {}),
      ...(r.fields.input !== undefined ? { input: r.fields.input } : {}),
      ...(r.fields.output !== undefined ? { output: r.fields.output } : {}),
      metadata: limitMetadata({ resource: r.resource }, maxFieldBytes),
    };
    return { op: 'trace.create', id: r.traceId, fields };
  });

  return { ops: [...traceOps, ...spanOps], accepted: spanOps.length, rejected, errors: [...errors] };
}

function pickString(attrs: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = attrs[k];
    if (typeof v === 'string' && v) return v.slice(0, MAX_LABEL);
  }
  return undefined;
}

function spanMetadata(
  span: OtlpSpan,
  attrs: Record<string, unknown>,
  events: SpanEventLike[],
  consumedKeys: Set<string>,
  consumedEvents: Set<number>,
  resource: Record<string, unknown>,
  scope: { name: string; version?: string } | undefined,
): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) if (!consumedKeys.has(k)) rest[k] = v;
  // The full resource is stored once, on the trace (from the root span); spans keep the service name.
  const m: Record<string, unknown> = { attributes: rest, kind: SPAN_KINDS[span.kind ?? 0] ?? String(span.kind) };
  if (typeof resource['service.name'] === 'string') m.service_name = resource['service.name'];
  if (scope) m.scope = scope;
  if (span.status?.message) m.status_message = span.status.message;
  if (span.traceState) m.trace_state = span.traceState;
  const keptEvents = (span.events ?? [])
    .map((e, i) => ({ e, i }))
    .filter(({ i }) => !consumedEvents.has(i))
    .map(({ e, i }) => ({
      name: events[i]!.name,
      time: nanosToIso(e?.timeUnixNano),
      attributes: events[i]!.attributes,
    }));
  if (keptEvents.length) m.events = keptEvents;
  const links = (span.links ?? []).map((l) => ({
    trace_id: bytesToHex(l?.traceId),
    span_id: bytesToHex(l?.spanId),
    attributes: attributes(l?.attributes),
  }));
  if (links.length) m.links = links;
  const dropped = {
    attributes: span.droppedAttributesCount ?? 0,
    events: span.droppedEventsCount ?? 0,
    links: span.droppedLinksCount ?? 0,
  };
  if (dropped.attributes || dropped.events || dropped.links) m.dropped = dropped;
  return m;
}

/** Oversized metadata keeps its small parts and a truncation marker instead of the big ones. */
function limitMetadata(m: Record<string, unknown>, maxBytes: number): Record<string, unknown> {
  const t = truncateJson(m, maxBytes);
  if (t === m) return m;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) out[k] = truncateJson(v, Math.floor(maxBytes / 8));
  return truncateJson(out, maxBytes) === out ? out : { __truncated: true };
}
