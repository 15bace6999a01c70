import type { Knex } from 'knex';
import { isoSql } from '../http/pagination';
import type { SessionFilters } from './schemas';

/**
 * The rows of these queries as pg returns them (int8 and numeric parse as numbers, src/db/knex.ts).
 * A session is one (project, session id): traces and requests grouped (sessionsSql's `s`).
 */
export interface SessionRecord {
  project_id: string;
  session_id: string;
  trace_count: number;
  request_count: number;
  first_at: Date | null;
  last_at: Date | null;
  trace_duration_ms: number | null;
  user_id: string | null;
  // the requests' sums (null: the session has no requests)
  r_prompt_tokens: number | null;
  r_completion_tokens: number | null;
  r_total_tokens: number | null;
  r_cost_usd: number | null;
  r_latency_ms: number | null;
}
/** A page row also carries its cursor: last_at to the microsecond. */
export interface SessionPageRecord extends SessionRecord {
  cursor_ts: string;
}
/** Tokens and cost of a session's spans (spanTotals). */
export interface SpanTotalsRecord {
  project_id: string;
  session_id: string;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cost_usd: number | null;
}
/** A trace of a session with its span aggregates; times are already microsecond ISO text. */
export interface SessionTraceRecord {
  project_id: string;
  id: string;
  name: string | null;
  status: string;
  user_id: string | null;
  start_time: string;
  end_time: string | null;
  duration_ms: number | null;
  span_count: number;
  total_tokens: number | null;
  cost_usd: number | null;
}
export interface SessionRequestRecord {
  id: string;
  project_id: string;
  provider: string;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cost_usd: number | null;
  latency_ms: number | null;
  status_code: number | null;
  trace_id: string | null;
  span_id: string | null;
  user_id: string | null;
  created_at: Date;
}

type SessionScope = Pick<SessionFilters, 'from' | 'to' | 'user_id'> & { projectIds: string[] };

/** Sessions grouped from traces and requests, filtered; `sessionId` narrows to one session id. */
function sessionsSql(f: SessionScope, sessionId?: string) {
  const tw: string[] = ['project_id = any(?::uuid[])', 'session_id is not null'];
  const ta: Knex.RawBinding[] = [f.projectIds];
  const rw: string[] = ['project_id = any(?::uuid[])', 'session_id is not null'];
  const ra: Knex.RawBinding[] = [f.projectIds];
  if (sessionId !== undefined) {
    tw.push('session_id = ?');
    ta.push(sessionId);
    rw.push('session_id = ?');
    ra.push(sessionId);
  }
  if (f.from) {
    tw.push('start_time >= ?');
    ta.push(f.from);
    rw.push('created_at >= ?');
    ra.push(f.from);
  }
  if (f.to) {
    tw.push('start_time < ?');
    ta.push(f.to);
    rw.push('created_at < ?');
    ra.push(f.to);
  }
  if (f.user_id) {
    tw.push('user_id = ?');
    ta.push(f.user_id);
    rw.push('user_id = ?');
    ra.push(f.user_id);
  }
  const sql = `
    with t as (
      select project_id, session_id, count(*)::int as trace_count, min(start_time) as first_at,
             max(coalesce(end_time, start_time)) as last_at, sum(duration_ms) as trace_duration_ms,
             max(user_id) as user_id
        from traces where ${tw.join(' and ')} group by project_id, session_id),
    r as (
      select project_id, session_id, count(*)::int as request_count, sum(prompt_tokens)::bigint as prompt_tokens,
             sum(completion_tokens)::bigint as completion_tokens, sum(total_tokens)::bigint as total_tokens,
             sum(cost_usd) as cost_usd, sum(latency_ms)::bigint as latency_ms, min(created_at) as first_at,
             max(created_at) as last_at, max(user_id) as user_id
        from requests where ${rw.join(' and ')} group by project_id, session_id),
    s as (
      select coalesce(t.project_id, r.project_id) as project_id, coalesce(t.session_id, r.session_id) as session_id,
             coalesce(t.trace_count, 0) as trace_count, coalesce(r.request_count, 0) as request_count,
             least(t.first_at, r.first_at) as first_at, greatest(t.last_at, r.last_at) as last_at,
             t.trace_duration_ms, coalesce(t.user_id, r.user_id) as user_id,
             r.prompt_tokens as r_prompt_tokens, r.completion_tokens as r_completion_tokens,
             r.total_tokens as r_total_tokens, r.cost_usd as r_cost_usd, r.latency_ms as r_latency_ms
        from t full join r on t.project_id = r.project_id and t.session_id = r.session_id)`;
  return { sql, args: [...ta, ...ra] };
}

/** Span tokens and cost per session, leaving out spans a proxied request is linked to. */
export async function spanTotals(db: Knex, keys: { project_id: string; session_id: string }[]) {
  if (keys.length === 0) return new Map<string, SpanTotalsRecord>();
  const { rows } = await db.raw<{ rows: SpanTotalsRecord[] }>(
    `select t.project_id, t.session_id, sum(s.prompt_tokens)::bigint as prompt_tokens,
            sum(s.completion_tokens)::bigint as completion_tokens, sum(s.total_tokens)::bigint as total_tokens,
            sum(s.cost_usd) as cost_usd
       from jsonb_to_recordset(?::jsonb) as k(project_id uuid, session_id text)
       join traces t on t.project_id = k.project_id and t.session_id = k.session_id
       join spans s on s.project_id = t.project_id and s.trace_id = t.id
      where not exists (select 1 from requests r
                         where r.trace_id = s.trace_id and r.span_id = s.id and r.project_id = s.project_id)
      group by t.project_id, t.session_id`,
    [JSON.stringify(keys)],
  );
  return new Map(rows.map((r) => [`${r.project_id}/${r.session_id}`, r]));
}

/** One page of sessions, most recent activity first; `after` is the checked (last_at, project_id, session_id) key. */
export async function listSessionRows(
  db: Knex,
  f: SessionScope,
  limit: number,
  after: string[] | null,
): Promise<SessionPageRecord[]> {
  const { sql, args } = sessionsSql(f);
  const where = after ? 'where (last_at, project_id, session_id) < (?::timestamptz, ?::uuid, ?)' : '';
  const { rows } = await db.raw<{ rows: SessionPageRecord[] }>(
    `${sql} select s.*, ${isoSql('s.last_at')} as cursor_ts from s ${where}
      order by last_at desc, project_id desc, session_id desc limit ?`,
    [...args, ...(after ?? []), limit + 1],
  );
  return rows;
}

/** The per-project parts of one session id. */
export async function sessionRows(db: Knex, projectIds: string[], sessionId: string): Promise<SessionRecord[]> {
  const { sql, args } = sessionsSql({ projectIds }, sessionId);
  const { rows } = await db.raw<{ rows: SessionRecord[] }>(`${sql} select * from s order by last_at desc`, args);
  return rows;
}

export async function sessionTraceRows(
  db: Knex,
  projectIds: string[],
  sessionId: string,
  limit: number,
): Promise<SessionTraceRecord[]> {
  const { rows } = await db.raw<{ rows: SessionTraceRecord[] }>(
    `select t.project_id, t.id, t.name, t.status, t.user_id, ${isoSql('t.start_time')} as start_time,
            ${isoSql('t.end_time')} as end_time, t.duration_ms, a.*
       from traces t
       left join lateral (
         select count(*)::int as span_count, sum(s.total_tokens)::bigint as total_tokens, sum(s.cost_usd) as cost_usd
           from spans s where s.project_id = t.project_id and s.trace_id = t.id) a on true
      where t.project_id = any(?::uuid[]) and t.session_id = ?
      order by t.start_time, t.id limit ?`,
    [projectIds, sessionId, limit],
  );
  return rows;
}

export async function sessionRequestRows(
  db: Knex,
  projectIds: string[],
  sessionId: string,
  limit: number,
): Promise<SessionRequestRecord[]> {
  const { rows } = await db.raw<{ rows: SessionRequestRecord[] }>(
    `select r.id, r.project_id, r.provider, r.model, r.prompt_tokens, r.completion_tokens, r.total_tokens, r.cost_usd,
            r.latency_ms, r.status_code, r.trace_id, r.span_id, r.user_id, r.created_at
       from requests r where r.project_id = any(?::uuid[]) and r.session_id = ?
      order by r.created_at, r.id limit ?`,
    [projectIds, sessionId, limit],
  );
  return rows;
}
