import type { Knex } from 'knex';
import { decodeCursor, encodeCursor, isoSql, num } from './common';

/** Read side of traces and spans: the list with filters and keyset pagination, one trace with its spans. */

export interface TraceFilters {
  projectIds: string[];
  from?: string;
  to?: string;
  status?: 'running' | 'completed' | 'error';
  name?: string;
  userId?: string;
  sessionId?: string;
  minDurationMs?: number;
  limit: number;
  cursor?: string;
}

/** Spans returned with one trace; larger traces say `spans_truncated: true`. */
export const MAX_SPANS_PER_TRACE = 5000;

const TRACE_COLUMNS = `t.project_id, t.id, t.name, t.status, t.session_id, t.user_id, t.metadata, t.source, t.created,
  ${isoSql('t.start_time')} as start_time, ${isoSql('t.end_time')} as end_time, t.duration_ms,
  ${isoSql('t.created_at')} as created_at, ${isoSql('t.updated_at')} as updated_at`;

const SPAN_TOTALS = `left join lateral (
    select count(*)::int as span_count, sum(s.prompt_tokens)::bigint as prompt_tokens,
           sum(s.completion_tokens)::bigint as completion_tokens, sum(s.total_tokens)::bigint as total_tokens,
           sum(s.cost_usd) as cost_usd
      from spans s where s.project_id = t.project_id and s.trace_id = t.id) a on true`;

type Row = Record<string, unknown>;

function traceOut(r: Row) {
  return {
    id: r.id as string,
    project_id: r.project_id as string,
    name: r.name as string | null,
    status: r.status as string,
    session_id: r.session_id as string | null,
    user_id: r.user_id as string | null,
    start_time: r.start_time as string,
    end_time: r.end_time as string | null,
    duration_ms: num(r.duration_ms),
    span_count: num(r.span_count) ?? 0,
    prompt_tokens: num(r.prompt_tokens) ?? 0,
    completion_tokens: num(r.completion_tokens) ?? 0,
    total_tokens: num(r.total_tokens) ?? 0,
    cost_usd: num(r.cost_usd),
    metadata: (r.metadata as Record<string, unknown> | null) ?? {},
    source: r.source as string,
    /** True while only updates or spans of this trace arrived, not its create. */
    pending_create: !r.created,
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
  };
}

export async function listTraces(db: Knex, f: TraceFilters) {
  const where: string[] = ['t.project_id = any(?::uuid[])'];
  const args: Knex.RawBinding[] = [f.projectIds];
  if (f.from) where.push('t.start_time >= ?'), args.push(f.from);
  if (f.to) where.push('t.start_time < ?'), args.push(f.to);
  if (f.status) where.push('t.status = ?'), args.push(f.status);
  if (f.name) where.push('t.name = ?'), args.push(f.name);
  if (f.userId) where.push('t.user_id = ?'), args.push(f.userId);
  if (f.sessionId) where.push('t.session_id = ?'), args.push(f.sessionId);
  if (f.minDurationMs !== undefined) where.push('t.duration_ms >= ?'), args.push(f.minDurationMs);
  if (f.cursor) {
    const [ts, projectId, id] = decodeCursor(f.cursor, 3) as [string, string, string];
    where.push('(t.start_time, t.project_id, t.id) < (?::timestamptz, ?::uuid, ?)');
    args.push(ts, projectId, id);
  }
  const { rows } = await db.raw(
    `select ${TRACE_COLUMNS}, a.* from traces t ${SPAN_TOTALS}
      where ${where.join(' and ')}
      order by t.start_time desc, t.project_id desc, t.id desc
      limit ?`,
    [...args, f.limit + 1],
  );
  const page = (rows as Row[]).slice(0, f.limit);
  const last = page[page.length - 1];
  return {
    traces: page.map(traceOut),
    next_cursor: rows.length > f.limit && last ? encodeCursor([last.start_time as string, last.project_id as string, last.id as string]) : null,
  };
}

function spanOut(r: Row) {
  const prompt = num(r.prompt_tokens);
  const completion = num(r.completion_tokens);
  const total = num(r.total_tokens);
  return {
    id: r.id as string,
    trace_id: r.trace_id as string,
    parent_span_id: r.parent_span_id as string | null,
    name: r.name as string | null,
    span_type: (r.span_type as string | null) ?? 'other',
    status: r.status as string | null,
    model: r.model as string | null,
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
    metadata: (r.metadata as Record<string, unknown> | null) ?? {},
    start_time: r.start_time as string | null,
    end_time: r.end_time as string | null,
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
  for (const s of spans) nodes.set(s.id, { id: s.id, name: s.name, span_type: s.span_type, status: s.status, start_time: s.start_time, duration_ms: s.duration_ms, children: [] });
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

export async function getTrace(db: Knex, projectIds: string[], id: string) {
  const { rows } = await db.raw(
    `select ${TRACE_COLUMNS}, t.input, t.output, a.* from traces t ${SPAN_TOTALS}
      where t.project_id = any(?::uuid[]) and t.id = ?
      order by t.start_time desc limit 1`,
    [projectIds, id],
  );
  const row = (rows as Row[])[0];
  if (!row) return null;
  const spans = await db.raw(
    `select s.id, s.trace_id, s.parent_span_id, s.name, s.span_type, s.status, s.model, s.prompt_tokens, s.completion_tokens,
            s.total_tokens, s.cost_usd, s.input, s.output, s.metadata, s.created, s.duration_ms,
            ${isoSql('s.start_time')} as start_time, ${isoSql('s.end_time')} as end_time
       from spans s where s.project_id = ? and s.trace_id = ?
      order by s.start_time nulls last, s.id
      limit ?`,
    [row.project_id as string, id, MAX_SPANS_PER_TRACE + 1],
  );
  const spanRows = (spans.rows as Row[]).slice(0, MAX_SPANS_PER_TRACE).map(spanOut);
  return {
    ...traceOut(row),
    input: row.input ?? null,
    output: row.output ?? null,
    spans: spanRows,
    spans_truncated: spans.rows.length > MAX_SPANS_PER_TRACE,
    tree: spanTree(spanRows),
  };
}
