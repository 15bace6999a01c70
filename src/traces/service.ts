import type { Knex } from 'knex';
import { scoresOfTrace } from '../scores/service';
import { toView as scoreView } from '../scores/service';
import { notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import * as q from './queries';
import type { TraceFilters } from './schemas';
import { numOrNull } from '../db/convert';

/** What other features read of this one's data (they never import its queries). */
export { traceBodies, spanRowsOfTraces, traceWhere } from './queries';

/** Read side of traces and spans: the list with filters and keyset pagination, one trace with its spans. */

/** Spans returned with one trace; larger traces say `spans_truncated: true`. */
const MAX_SPANS_PER_TRACE = 5000;

/** Cursor of the trace list: (start_time with microseconds, project_id, id) of the last row. */
const cursor = cursorCodec('ts', 'uuid', 'text');

/** bigint/numeric aggregates and nullable counts as numbers (null stays null). */
const num = numOrNull;

function traceOut(r: q.TraceRecord) {
  return {
    id: r.id,
    project_id: r.project_id,
    name: r.name,
    status: r.status,
    session_id: r.session_id,
    user_id: r.user_id,
    start_time: r.start_time,
    end_time: r.end_time,
    duration_ms: num(r.duration_ms),
    span_count: num(r.span_count) ?? 0,
    prompt_tokens: num(r.prompt_tokens) ?? 0,
    completion_tokens: num(r.completion_tokens) ?? 0,
    total_tokens: num(r.total_tokens) ?? 0,
    cost_usd: num(r.cost_usd),
    metadata: r.metadata ?? {},
    source: r.source,
    /** True while only updates or spans of this trace arrived, not its create. */
    pending_create: !r.created,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function spanOut(r: q.SpanRecord) {
  const prompt = num(r.prompt_tokens);
  const completion = num(r.completion_tokens);
  const total = num(r.total_tokens);
  return {
    id: r.id,
    trace_id: r.trace_id,
    parent_span_id: r.parent_span_id,
    name: r.name,
    span_type: r.span_type ?? 'other',
    status: r.status,
    model: r.model,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    // the spec's spelling of the same counts
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: total,
    cost_usd: num(r.cost_usd),
    input: r.input ?? null,
    output: r.output ?? null,
    metadata: r.metadata ?? {},
    start_time: r.start_time,
    end_time: r.end_time,
    duration_ms: num(r.duration_ms),
    pending_create: !r.created,
  };
}

export type SpanOut = ReturnType<typeof spanOut>;
export interface SpanNode {
  id: string;
  name: string | null;
  span_type: string;
  status: string | null;
  start_time: string | null;
  duration_ms: number | null;
  children: SpanNode[];
}

/** Nests spans under their parents; spans whose parent is not in the trace are roots (cycles are broken). */
export function spanTree(spans: SpanOut[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  for (const s of spans)
    nodes.set(s.id, {
      id: s.id,
      name: s.name,
      span_type: s.span_type,
      status: s.status,
      start_time: s.start_time,
      duration_ms: s.duration_ms,
      children: [],
    });
  const roots: SpanNode[] = [];
  const childrenOf = new Map<string, SpanNode[]>();
  for (const s of spans) {
    const node = nodes.get(s.id)!;
    if (s.parent_span_id && s.parent_span_id !== s.id && nodes.has(s.parent_span_id)) {
      const list = childrenOf.get(s.parent_span_id) ?? [];
      list.push(node);
      childrenOf.set(s.parent_span_id, list);
    } else roots.push(node);
  }
  const attached = new Set<string>();
  const attach = (start: SpanNode) => {
    const stack = [start];
    attached.add(start.id);
    while (stack.length) {
      const n = stack.pop()!;
      for (const c of childrenOf.get(n.id) ?? []) {
        if (attached.has(c.id)) continue;
        attached.add(c.id);
        n.children.push(c);
        stack.push(c);
      }
    }
  };
  roots.forEach(attach);
  // Spans only reachable through a parent cycle: the first of each cycle becomes a root.
  for (const s of spans) {
    if (!attached.has(s.id)) {
      const n = nodes.get(s.id)!;
      roots.push(n);
      attach(n);
    }
  }
  return roots;
}

export async function listTraces(db: Knex, projectIds: string[], f: TraceFilters) {
  const after = f.cursor ? cursor.decode(f.cursor) : null;
  const rows = await q.listTraceRows(db, projectIds, f, after);
  return pageOf(rows, f.limit, cursor, (r) => [r.start_time, r.project_id, r.id], traceOut);
}

/** One trace with its spans (flat and as a tree), or 404. */
export async function requireTrace(db: Knex, projectIds: string[], id: string) {
  const row = await q.findTraceRow(db, projectIds, id);
  if (!row) throw notFound('Trace');
  const spans = await q.spanRowsOf(db, row.project_id, id, MAX_SPANS_PER_TRACE + 1);
  const spanRows = spans.slice(0, MAX_SPANS_PER_TRACE).map(spanOut);
  return {
    ...traceOut(row),
    input: row.input ?? null,
    output: row.output ?? null,
    spans: spanRows,
    spans_truncated: spans.length > MAX_SPANS_PER_TRACE,
    tree: spanTree(spanRows),
    scores: (await scoresOfTrace(db, row.project_id, id)).map(scoreView),
  };
}
