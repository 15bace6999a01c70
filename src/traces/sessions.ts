import type { Knex } from 'knex';
import { decodeCursor, encodeCursor, isoSql, num } from './common';

/**
 * Sessions: traces (traces.session_id) and proxied requests (requests.session_id) grouped by
 * session id within a project. Totals add the requests' tokens and cost to the tokens and cost of
 * the session's spans, leaving out spans that a proxied request is linked to (requests.trace_id +
 * span_id) so one model call recorded both ways is counted once.
 */

export interface SessionFilters {
  projectIds: string[];
  from?: string;
  to?: string;
  userId?: string;
  limit: number;
  cursor?: string;
}

type Row = Record<string, unknown>;

/** Sessions grouped from traces and requests, filtered; `sessionId` narrows to one session id. */
function sessionsSql(f: Omit<SessionFilters, 'limit' | 'cursor'>, sessionId?: string) {
  const tw: string[] = ['project_id = any(?::uuid[])', 'session_id is not null'];
  const ta: Knex.RawBinding[] = [f.projectIds];
  const rw: string[] = ['project_id = any(?::uuid[])', 'session_id is not null'];
  const ra: Knex.RawBinding[] = [f.projectIds];
  if (sessionId !== undefined) tw.push('session_id = ?'), ta.push(sessionId), rw.push('session_id = ?'), ra.push(sessionId);
  if (f.from) tw.push('start_time >= ?'), ta.push(f.from), rw.push('created_at >= ?'), ra.push(f.from);
  if (f.to) tw.push('start_time < ?'), ta.push(f.to), rw.push('created_at < ?'), ra.push(f.to);
  if (f.userId) tw.push('user_id = ?'), ta.push(f.userId), rw.push('user_id = ?'), ra.push(f.userId);
  const sql = `
    with t as (
      select project_id, session_id, count(*)::int as trace_count, min(start_time) as first_at,
             max(coalesce(end_time, start_time)) as last_at, sum(duration_ms) as trace_duration_ms, max(user_id) as user_id
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

async function spanTotals(db: Knex, keys: { project_id: string; session_id: string }[]) {
  if (keys.length === 0) return new Map<string, Row>();
  const { rows } = await db.raw(
    `select t.project_id, t.session_id, sum(s.prompt_tokens)::bigint as prompt_tokens,
            sum(s.completion_tokens)::bigint as completion_tokens, sum(s.total_tokens)::bigint as total_tokens,
            sum(s.cost_usd) as cost_usd
       from jsonb_to_recordset(?::jsonb) as k(project_id uuid, session_id text)
       join traces t on t.project_id = k.project_id and t.session_id = k.session_id
       join spans s on s.project_id = t.project_id and s.trace_id = t.id
      where not exists (select 1 from requests r where r.trace_id = s.trace_id and r.span_id = s.id and r.project_id = s.project_id)
      group by t.project_id, t.session_id`,
    [JSON.stringify(keys)],
  );
  return new Map((rows as Row[]).map((r) => [`${r.project_id}/${r.session_id}`, r]));
}

const add = (...xs: unknown[]) => xs.reduce<number>((a, x) => a + (num(x) ?? 0), 0);
const addNullable = (...xs: unknown[]) => (xs.every((x) => x === null || x === undefined) ? null : add(...xs));

function sessionOut(r: Row, spans: Row | undefined) {
  const first = r.first_at as Date | null;
  const last = r.last_at as Date | null;
  return {
    id: r.session_id as string,
    project_id: r.project_id as string,
    user_id: (r.user_id as string | null) ?? null,
    trace_count: num(r.trace_count) ?? 0,
    request_count: num(r.request_count) ?? 0,
    first_seen_at: first ? first.toISOString() : null,
    last_seen_at: last ? last.toISOString() : null,
    /** Wall-clock span of the session: first activity to last. */
    duration_ms: first && last ? last.getTime() - first.getTime() : null,
    /** Sum of the traces' own durations. */
    trace_duration_ms: num(r.trace_duration_ms),
    prompt_tokens: add(r.r_prompt_tokens, spans?.prompt_tokens),
    completion_tokens: add(r.r_completion_tokens, spans?.completion_tokens),
    total_tokens: add(r.r_total_tokens, spans?.total_tokens),
    cost_usd: addNullable(r.r_cost_usd, spans?.cost_usd),
    breakdown: {
      requests: { total_tokens: num(r.r_total_tokens) ?? 0, cost_usd: num(r.r_cost_usd), latency_ms: num(r.r_latency_ms) ?? 0 },
      spans: { total_tokens: num(spans?.total_tokens) ?? 0, cost_usd: num(spans?.cost_usd) },
    },
  };
}

export async function listSessions(db: Knex, f: SessionFilters) {
  const { sql, args } = sessionsSql(f);
  const where: string[] = [];
  const wargs: Knex.RawBinding[] = [];
  if (f.cursor) {
    const [ts, projectId, sessionId] = decodeCursor(f.cursor, 3) as [string, string, string];
    where.push('(last_at, project_id, session_id) < (?::timestamptz, ?::uuid, ?)');
    wargs.push(ts, projectId, sessionId);
  }
  const { rows } = await db.raw(
    `${sql} select s.*, ${isoSql('s.last_at')} as cursor_ts from s ${where.length ? `where ${where.join(' and ')}` : ''}
      order by last_at desc, project_id desc, session_id desc limit ?`,
    [...args, ...wargs, f.limit + 1],
  );
  const page = (rows as Row[]).slice(0, f.limit);
  const totals = await spanTotals(db, page.map((r) => ({ project_id: r.project_id as string, session_id: r.session_id as string })));
  const last = page[page.length - 1];
  return {
    sessions: page.map((r) => sessionOut(r, totals.get(`${r.project_id}/${r.session_id}`))),
    next_cursor: rows.length > f.limit && last ? encodeCursor([last.cursor_ts as string, last.project_id as string, last.session_id as string]) : null,
  };
}

export const SESSION_ITEMS_LIMIT = 500;

/** One session (across the projects in scope) with its traces and proxied requests, oldest first. */
export async function getSession(db: Knex, projectIds: string[], sessionId: string) {
  const { sql, args } = sessionsSql({ projectIds }, sessionId);
  const { rows } = await db.raw(`${sql} select * from s order by last_at desc`, args);
  if ((rows as Row[]).length === 0) return null;
  const totals = await spanTotals(db, (rows as Row[]).map((r) => ({ project_id: r.project_id as string, session_id: sessionId })));
  const parts = (rows as Row[]).map((r) => sessionOut(r, totals.get(`${r.project_id}/${r.session_id}`)));
  const summary = parts.length === 1 ? parts[0]! : mergeSessions(parts);

  const traces = await db.raw(
    `select t.project_id, t.id, t.name, t.status, t.user_id, ${isoSql('t.start_time')} as start_time,
            ${isoSql('t.end_time')} as end_time, t.duration_ms, a.*
       from traces t
       left join lateral (
         select count(*)::int as span_count, sum(s.total_tokens)::bigint as total_tokens, sum(s.cost_usd) as cost_usd
           from spans s where s.project_id = t.project_id and s.trace_id = t.id) a on true
      where t.project_id = any(?::uuid[]) and t.session_id = ?
      order by t.start_time, t.id limit ?`,
    [projectIds, sessionId, SESSION_ITEMS_LIMIT],
  );
  const requests = await db.raw(
    `select r.id, r.project_id, r.provider, r.model, r.prompt_tokens, r.completion_tokens, r.total_tokens, r.cost_usd,
            r.latency_ms, r.status_code, r.trace_id, r.span_id, r.user_id, r.created_at
       from requests r where r.project_id = any(?::uuid[]) and r.session_id = ?
      order by r.created_at, r.id limit ?`,
    [projectIds, sessionId, SESSION_ITEMS_LIMIT],
  );
  return {
    ...summary,
    traces: (traces.rows as Row[]).map((t) => ({
      id: t.id,
      project_id: t.project_id,
      name: t.name,
      status: t.status,
      user_id: t.user_id,
      start_time: t.start_time,
      end_time: t.end_time,
      duration_ms: num(t.duration_ms),
      span_count: num(t.span_count) ?? 0,
      total_tokens: num(t.total_tokens) ?? 0,
      cost_usd: num(t.cost_usd),
    })),
    requests: (requests.rows as Row[]).map((r) => ({
      ...r,
      cost_usd: num(r.cost_usd),
      created_at: (r.created_at as Date).toISOString(),
    })),
  };
}

function mergeSessions(parts: ReturnType<typeof sessionOut>[]) {
  const firsts = parts.map((p) => p.first_seen_at).filter((x): x is string => !!x).sort();
  const lasts = parts.map((p) => p.last_seen_at).filter((x): x is string => !!x).sort();
  const first = firsts[0] ?? null;
  const last = lasts[lasts.length - 1] ?? null;
  const sum = (f: (p: (typeof parts)[number]) => number | null) => addNullable(...parts.map(f));
  return {
    id: parts[0]!.id,
    project_id: null,
    project_ids: parts.map((p) => p.project_id),
    user_id: parts.find((p) => p.user_id)?.user_id ?? null,
    trace_count: add(...parts.map((p) => p.trace_count)),
    request_count: add(...parts.map((p) => p.request_count)),
    first_seen_at: first,
    last_seen_at: last,
    duration_ms: first && last ? Date.parse(last) - Date.parse(first) : null,
    trace_duration_ms: sum((p) => p.trace_duration_ms),
    prompt_tokens: add(...parts.map((p) => p.prompt_tokens)),
    completion_tokens: add(...parts.map((p) => p.completion_tokens)),
    total_tokens: add(...parts.map((p) => p.total_tokens)),
    cost_usd: sum((p) => p.cost_usd),
    breakdown: {
      requests: {
        total_tokens: add(...parts.map((p) => p.breakdown.requests.total_tokens)),
        cost_usd: sum((p) => p.breakdown.requests.cost_usd),
        latency_ms: add(...parts.map((p) => p.breakdown.requests.latency_ms)),
      },
      spans: { total_tokens: add(...parts.map((p) => p.breakdown.spans.total_tokens)), cost_usd: sum((p) => p.breakdown.spans.cost_usd) },
    },
  };
}
