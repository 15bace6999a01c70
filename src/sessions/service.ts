import { traceBodies } from '../traces/service';
import type { Knex } from 'knex';
import { notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { isoOrNull, isoText, numOrNull as num } from '../db/convert';
import * as q from './queries';
import type { SessionFilters } from './schemas';

/**
 * Sessions: traces (traces.session_id) and proxied requests (requests.session_id) grouped by
 * session id within a project. Totals add the requests' tokens and cost to the tokens and cost of
 * the session's spans, leaving out spans that a proxied request is linked to (requests.trace_id +
 * span_id) so one model call recorded both ways is counted once.
 */

/** Cursor of the session list: (last activity with microseconds, project_id, session id) of the last row. */
const cursor = cursorCodec('ts', 'uuid', 'text');

/** Traces and requests returned with one session. */
const SESSION_ITEMS_LIMIT = 500;

const keyOf = (r: { project_id: string; session_id: string }) => `${r.project_id}/${r.session_id}`;

const add = (...xs: unknown[]) => xs.reduce<number>((a, x) => a + (num(x) ?? 0), 0);
const addNullable = (...xs: unknown[]) => (xs.every((x) => x === null || x === undefined) ? null : add(...xs));

function sessionOut(r: q.SessionRecord, spans: q.SpanTotalsRecord | undefined) {
  const first = r.first_at;
  const last = r.last_at;
  return {
    id: r.session_id,
    project_id: r.project_id,
    user_id: r.user_id ?? null,
    trace_count: num(r.trace_count) ?? 0,
    request_count: num(r.request_count) ?? 0,
    first_seen_at: isoOrNull(first),
    last_seen_at: isoOrNull(last),
    /** Wall-clock span of the session: first activity to last. */
    duration_ms: first && last ? last.getTime() - first.getTime() : null,
    /** Sum of the traces' own durations. */
    trace_duration_ms: num(r.trace_duration_ms),
    prompt_tokens: add(r.r_prompt_tokens, spans?.prompt_tokens),
    completion_tokens: add(r.r_completion_tokens, spans?.completion_tokens),
    total_tokens: add(r.r_total_tokens, spans?.total_tokens),
    cost_usd: addNullable(r.r_cost_usd, spans?.cost_usd),
    breakdown: {
      requests: {
        total_tokens: num(r.r_total_tokens) ?? 0,
        cost_usd: num(r.r_cost_usd),
        latency_ms: num(r.r_latency_ms) ?? 0,
      },
      spans: { total_tokens: num(spans?.total_tokens) ?? 0, cost_usd: num(spans?.cost_usd) },
    },
  };
}

export async function listSessions(db: Knex, projectIds: string[], f: SessionFilters) {
  const after = f.cursor ? cursor.decode(f.cursor) : null;
  const rows = await q.listSessionRows(db, { ...f, projectIds }, f.limit, after);
  const page = pageOf(rows, f.limit, cursor, (r) => [r.cursor_ts, r.project_id, r.session_id]);
  const totals = await q.spanTotals(
    db,
    page.data.map((r) => ({ project_id: r.project_id, session_id: r.session_id })),
  );
  return { data: page.data.map((r) => sessionOut(r, totals.get(keyOf(r)))), next_cursor: page.next_cursor };
}

/** One session (across the projects in scope) with its traces and proxied requests, oldest first; or 404. */
export async function requireSession(db: Knex, projectIds: string[], sessionId: string, withBodies = false) {
  const rows = await q.sessionRows(db, projectIds, sessionId);
  if (rows.length === 0) throw notFound('Session');
  const totals = await q.spanTotals(
    db,
    rows.map((r) => ({ project_id: r.project_id, session_id: sessionId })),
  );
  const parts = rows.map((r) => sessionOut(r, totals.get(keyOf(r))));
  const summary = parts.length === 1 ? parts[0]! : mergeSessions(parts);
  const traces = await q.sessionTraceRows(db, projectIds, sessionId, SESSION_ITEMS_LIMIT);
  const requests = await q.sessionRequestRows(db, projectIds, sessionId, SESSION_ITEMS_LIMIT);
  const io = withBodies
    ? await traceBodies(
        db,
        traces.map((t) => ({ project_id: t.project_id, id: t.id })),
      )
    : null;
  return {
    ...summary,
    traces: traces.map((t) => ({
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
      ...(io
        ? {
            input: io.get(`${t.project_id}/${t.id}`)?.input ?? null,
            output: io.get(`${t.project_id}/${t.id}`)?.output ?? null,
          }
        : {}),
    })),
    requests: requests.map((r) => ({
      ...r,
      cost_usd: num(r.cost_usd),
      created_at: isoText(r.created_at),
    })),
  };
}

function mergeSessions(parts: ReturnType<typeof sessionOut>[]) {
  const firsts = parts
    .map((p) => p.first_seen_at)
    .filter((x): x is string => !!x)
    .sort();
  const lasts = parts
    .map((p) => p.last_seen_at)
    .filter((x): x is string => !!x)
    .sort();
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
      spans: {
        total_tokens: add(...parts.map((p) => p.breakdown.spans.total_tokens)),
        cost_usd: sum((p) => p.breakdown.spans.cost_usd),
      },
    },
  };
}
