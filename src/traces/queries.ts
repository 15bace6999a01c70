import type { Knex } from 'knex';
import { isoSql } from '../http/pagination';
import type { TraceFilters } from './schemas';

/**
 * The rows of these queries as pg returns them: times are already microsecond ISO text (isoSql),
 * int8 and numeric sums parse as numbers (src/db/knex.ts). A trace comes with its span totals.
 */
export interface TraceRecord {
  project_id: string;
  id: string;
  name: string | null;
  status: string;
  session_id: string | null;
  user_id: string | null;
  metadata: Record<string, unknown> | null;
  source: string;
  created: boolean;
  start_time: string;
  end_time: string | null;
  duration_ms: number | null;
  created_at: string;
  updated_at: string;
  span_count: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cost_usd: number | null;
}
interface TraceBodiesRecord {
  project_id: string;
  id: string;
  input: unknown;
  output: unknown;
}
/** A span; input and output are left out of an export page without bodies, project_id is there only. */
export interface SpanRecord {
  id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string | null;
  span_type: string | null;
  status: string | null;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cost_usd: number | null;
  input?: unknown;
  output?: unknown;
  metadata: Record<string, unknown> | null;
  created: boolean;
  duration_ms: number | null;
  start_time: string | null;
  end_time: string | null;
  project_id?: string;
}

const TRACE_COLUMNS = `t.project_id, t.id, t.name, t.status, t.session_id, t.user_id, t.metadata, t.source, t.created,
  ${isoSql('t.start_time')} as start_time, ${isoSql('t.end_time')} as end_time, t.duration_ms,
  ${isoSql('t.created_at')} as created_at, ${isoSql('t.updated_at')} as updated_at`;

const SPAN_TOTALS = `left join lateral (
    select count(*)::int as span_count, sum(s.prompt_tokens)::bigint as prompt_tokens,
           sum(s.completion_tokens)::bigint as completion_tokens, sum(s.total_tokens)::bigint as total_tokens,
           sum(s.cost_usd) as cost_usd
      from spans s where s.project_id = t.project_id and s.trace_id = t.id) a on true`;

/** The trace list's filter as SQL over `traces t` (shared with exports, which count and page it). */
export function traceWhere(
  projectIds: string[],
  f: Omit<TraceFilters, 'limit'>,
): { sql: string; args: Knex.RawBinding[] } {
  // One project as an equality, so a keyset page walks the index in order (see requestWhere).
  const where: string[] = [projectIds.length === 1 ? 't.project_id = ?::uuid' : 't.project_id = any(?::uuid[])'];
  const args: Knex.RawBinding[] = [projectIds.length === 1 ? projectIds[0]! : projectIds];
  if (f.from) {
    where.push('t.start_time >= ?');
    args.push(f.from);
  }
  if (f.to) {
    where.push('t.start_time < ?');
    args.push(f.to);
  }
  if (f.status) {
    where.push('t.status = ?');
    args.push(f.status);
  }
  if (f.name) {
    where.push('t.name = ?');
    args.push(f.name);
  }
  if (f.user_id) {
    where.push('t.user_id = ?');
    args.push(f.user_id);
  }
  if (f.session_id) {
    where.push('t.session_id = ?');
    args.push(f.session_id);
  }
  if (f.min_duration_ms !== undefined) {
    where.push('t.duration_ms >= ?');
    args.push(f.min_duration_ms);
  }
  return { sql: where.join(' and '), args };
}

/** Newest first; `after` is the (start_time, project_id, id) key of the previous page's last row, already checked. */
export async function listTraceRows(
  db: Knex,
  projectIds: string[],
  f: TraceFilters,
  after: string[] | null,
): Promise<TraceRecord[]> {
  const w = traceWhere(projectIds, f);
  const afterSql = after ? ' and (t.start_time, t.project_id, t.id) < (?::timestamptz, ?::uuid, ?)' : '';
  const { rows } = await db.raw<{ rows: TraceRecord[] }>(
    `select ${TRACE_COLUMNS}, a.* from traces t ${SPAN_TOTALS}
      where ${w.sql}${afterSql}
      order by t.start_time desc, t.project_id desc, t.id desc
      limit ?`,
    [...w.args, ...(after ?? []), f.limit + 1],
  );
  return rows;
}

export async function findTraceRow(
  db: Knex,
  projectIds: string[],
  id: string,
): Promise<(TraceRecord & TraceBodiesRecord) | undefined> {
  const { rows } = await db.raw<{ rows: (TraceRecord & TraceBodiesRecord)[] }>(
    `select ${TRACE_COLUMNS}, t.input, t.output, a.* from traces t ${SPAN_TOTALS}
      where t.project_id = any(?::uuid[]) and t.id = ?
      order by t.start_time desc limit 1`,
    [projectIds, id],
  );
  return rows[0];
}

/** The spans of one trace in start order, at most `limit`. */
export async function spanRowsOf(db: Knex, projectId: string, traceId: string, limit: number): Promise<SpanRecord[]> {
  const { rows } = await db.raw<{ rows: SpanRecord[] }>(
    `select s.id, s.trace_id, s.parent_span_id, s.name, s.span_type, s.status, s.model,
            s.prompt_tokens, s.completion_tokens,
            s.total_tokens, s.cost_usd, s.input, s.output, s.metadata, s.created, s.duration_ms,
            ${isoSql('s.start_time')} as start_time, ${isoSql('s.end_time')} as end_time
       from spans s where s.project_id = ? and s.trace_id = ?
      order by s.start_time nulls last, s.id
      limit ?`,
    [projectId, traceId, limit],
  );
  return rows;
}

/** Spans of several traces (an export page), trace by trace in start order. */
export async function spanRowsOfTraces(
  db: Knex,
  traces: { project_id: string; id: string }[],
  withBodies: boolean,
): Promise<SpanRecord[]> {
  if (!traces.length) return [];
  const { rows } = await db.raw<{ rows: SpanRecord[] }>(
    `select s.id, s.trace_id, s.parent_span_id, s.name, s.span_type, s.status, s.model,
            s.prompt_tokens, s.completion_tokens,
            s.total_tokens, s.cost_usd, ${withBodies ? 's.input, s.output,' : ''} s.metadata, s.created, s.duration_ms,
            s.project_id,
            ${isoSql('s.start_time')} as start_time, ${isoSql('s.end_time')} as end_time
       from spans s join unnest(?::uuid[], ?::text[]) with ordinality k(project_id, trace_id, n)
         on s.project_id = k.project_id and s.trace_id = k.trace_id
      order by k.n, s.start_time nulls last, s.id`,
    [traces.map((t) => t.project_id), traces.map((t) => t.id)],
  );
  return rows;
}

/** Inputs and outputs of several traces (the list leaves them out). */
export async function traceBodies(
  db: Knex,
  traces: { project_id: string; id: string }[],
): Promise<Map<string, TraceBodiesRecord>> {
  if (!traces.length) return new Map();
  const { rows } = await db.raw<{ rows: TraceBodiesRecord[] }>(
    `select t.project_id, t.id, t.input, t.output
       from traces t join unnest(?::uuid[], ?::text[]) k(project_id, trace_id)
        on t.project_id = k.project_id and t.id = k.trace_id`,
    [traces.map((t) => t.project_id), traces.map((t) => t.id)],
  );
  return new Map(rows.map((r) => [`${r.project_id}/${r.id}`, r]));
}
