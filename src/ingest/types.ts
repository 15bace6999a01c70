/**
 * The normalized ingest operations every entry point (JSON ingest, batch, OTLP) produces and the
 * batch writer stores. Absent fields are `undefined` (never null): "not sent" means "no change".
 */

export const SPAN_TYPES = ['llm', 'retrieval', 'tool', 'agent', 'chain', 'embedding', 'other'] as const;
export type SpanType = (typeof SPAN_TYPES)[number];

export const TRACE_STATUSES = ['running', 'completed', 'error'] as const;
type TraceStatus = (typeof TRACE_STATUSES)[number];

export const SPAN_STATUSES = ['ok', 'error'] as const;
type SpanStatus = (typeof SPAN_STATUSES)[number];

/** Timestamps travel as ISO 8601 strings (microsecond precision for OTLP) straight into timestamptz. */
type IsoTime = string;

export interface TraceFields {
  name?: string;
  session_id?: string;
  user_id?: string;
  metadata?: Record<string, unknown>;
  input?: unknown;
  output?: unknown;
  start_time?: IsoTime;
  end_time?: IsoTime;
  status?: TraceStatus;
}

export interface SpanFields {
  trace_id?: string;
  parent_span_id?: string;
  name?: string;
  span_type?: SpanType;
  status?: SpanStatus;
  model?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  input?: unknown;
  output?: unknown;
  metadata?: Record<string, unknown>;
  start_time?: IsoTime;
  end_time?: IsoTime;
}

export type IngestOp =
  | { op: 'trace.create'; id: string; fields: TraceFields & { name: string; start_time: IsoTime } }
  | { op: 'trace.update'; id: string; fields: TraceFields }
  | {
      op: 'span.create';
      id: string;
      fields: SpanFields & { trace_id: string; name: string; span_type: SpanType; start_time: IsoTime };
    }
  | { op: 'span.update'; id: string; fields: SpanFields };

export type OpKind = IngestOp['op'];

/** Everything one request asks to store, in the order it asked. */
export interface IngestUnit {
  orgId: string;
  projectId: string;
  source: 'sdk' | 'otlp';
  ops: IngestOp[];
}

export type OpResult =
  /** 201 created (or a placeholder filled), 200 replayed create or applied update. */
  | { ok: true; status: 200 | 201; created?: boolean; replayed?: boolean; pending_create?: boolean }
  | { ok: false; status: number; code: string; error: string };
