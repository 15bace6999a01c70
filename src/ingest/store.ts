import type { Knex } from 'knex';
import { emitEvents } from '../events/outbox';
import { spanCostUsd } from './cost';
import { toPgJson } from './pg-json';
import type { IngestOp, IngestUnit, OpResult, SpanFields } from './types';

/**
 * Stores the operations of one or more requests in the caller's transaction.
 *
 * 1. The traces every operation touches are upserted (placeholder when new) and row-locked, sorted
 *    by key. Every writer that can end a trace or close a span holds the trace's lock until it
 *    commits, so the "ended and no span open" check below never misses a completion between two
 *    concurrent transactions (no write skew) and concurrent batches never deadlock on traces.
 * 2. Operations run in "rounds": round n holds the n-th operation on each trace/span, so one
 *    multi-row statement per kind and round (usually exactly one round) applies them in order.
 *    Creates fill placeholders; fields an earlier update already set win. A create of a row that
 *    is already created is a replay (200, nothing changes).
 * 3. Traces that are now ended (end_time and a final status) with no open span get their
 *    `completed_event_at` set by one conditional UPDATE, and exactly those emit trace.completed in
 *    this same transaction.
 */

interface Located {
  unit: number;
  index: number;
  op: IngestOp;
  projectId: string;
  orgId: string;
  source: 'sdk' | 'otlp';
  round: number;
}

export interface CompletedTrace {
  orgId: string;
  projectId: string;
  id: string;
  status: string;
  endedAt: string;
  durationMs: number | null;
}

const TRACE_COLUMNS = `project_id uuid, id text, name text, session_id text, user_id text, metadata jsonb, input jsonb,
  output jsonb, start_time timestamptz, end_time timestamptz, status text, source text`;
/**
 * Span rows travel as one JSON array of positional arrays (not objects): repeating 17 key names
 * and the project uuid on every row made up a third of the payload PostgreSQL had to parse.
 * Element 0 indexes the project ids passed as a separate uuid[] parameter (1-based).
 */
const SPAN_ROWS = `select (?::uuid[])[(r->>0)::int] as project_id, r->>1 as id, r->>2 as trace_id, r->>3 as parent_span_id,
    r->>4 as name, r->>5 as span_type, r->>6 as status, r->>7 as model, (r->>8)::integer as prompt_tokens,
    (r->>9)::integer as completion_tokens, (r->>10)::integer as total_tokens, (r->>11)::numeric as cost_usd,
    nullif(r->12, 'null'::jsonb) as input, nullif(r->13, 'null'::jsonb) as output, nullif(r->14, 'null'::jsonb) as metadata,
    (r->>15)::timestamptz as start_time, (r->>16)::timestamptz as end_time
  from jsonb_array_elements(?::jsonb) as r`;
const SPAN_INSERT = `project_id, id, trace_id, parent_span_id, name, span_type, status, model, prompt_tokens,
  completion_tokens, total_tokens, cost_usd, input, output, metadata, start_time, end_time`;
const SPAN_RETURNING = 'returning s.project_id, s.id, s.created, s.trace_id, s.model, s.prompt_tokens, s.completion_tokens, s.cost_usd';
/**
 * Creates usually carry model and tokens together, so their cost was computed before the insert;
 * only a create that filled a placeholder can need a recomputation, and only such rows return the
 * pricing columns (null elsewhere: less to send back and parse at thousands of spans per request).
 */
const SPAN_CREATE_RETURNING = `returning s.project_id, s.id,
  case when s.cost_usd is null and s.model is not null and (s.prompt_tokens is not null or s.completion_tokens is not null)
       then json_build_array(s.model, s.prompt_tokens, s.completion_tokens) end as price_input`;

const SQL = {
  lookupSpanTraces: `select s.project_id, s.id, s.trace_id
      from spans s join jsonb_to_recordset(?::jsonb) as k(project_id uuid, id text)
        on s.project_id = k.project_id and s.id = k.id
     where s.trace_id is not null`,
  lockTraces: `insert into traces as t (project_id, id, org_id, start_time)
     select r.project_id, r.id, r.org_id, coalesce(r.start_time, now())
       from jsonb_to_recordset(?::jsonb) as r(project_id uuid, id text, org_id uuid, start_time timestamptz)
     on conflict (project_id, id) do update set updated_at = now()`,
  createTraces: `update traces as t set
       name = coalesce(t.name, x.name),
       session_id = coalesce(t.session_id, x.session_id),
       user_id = coalesce(t.user_id, x.user_id),
       metadata = case when x.metadata is null then t.metadata else x.metadata || coalesce(t.metadata, '{}'::jsonb) end,
       input = coalesce(t.input, x.input),
       output = coalesce(t.output, x.output),
       start_time = x.start_time,
       end_time = coalesce(t.end_time, x.end_time),
       status = case when t.status <> 'running' then t.status else coalesce(x.status, 'running') end,
       source = x.source,
       created = true
     from jsonb_to_recordset(?::jsonb) as x(${TRACE_COLUMNS})
     where t.project_id = x.project_id and t.id = x.id and not t.created
     returning t.project_id, t.id`,
  updateTraces: `update traces as t set
       name = coalesce(x.name, t.name),
       session_id = coalesce(x.session_id, t.session_id),
       user_id = coalesce(x.user_id, t.user_id),
       metadata = case when x.metadata is null then t.metadata else coalesce(t.metadata, '{}'::jsonb) || x.metadata end,
       input = coalesce(x.input, t.input),
       output = coalesce(x.output, t.output),
       end_time = coalesce(x.end_time, t.end_time),
       status = coalesce(x.status, t.status)
     from jsonb_to_recordset(?::jsonb) as x(${TRACE_COLUMNS})
     where t.project_id = x.project_id and t.id = x.id
     returning t.project_id, t.id, t.created`,
  createSpans: `insert into spans as s (${SPAN_INSERT}, created)
     select ${SPAN_INSERT}, true from (${SPAN_ROWS}) as x
     on conflict (project_id, id) do update set
       trace_id = excluded.trace_id,
       parent_span_id = coalesce(s.parent_span_id, excluded.parent_span_id),
       name = coalesce(s.name, excluded.name),
       span_type = coalesce(s.span_type, excluded.span_type),
       status = coalesce(s.status, excluded.status),
       model = coalesce(s.model, excluded.model),
       prompt_tokens = coalesce(s.prompt_tokens, excluded.prompt_tokens),
       completion_tokens = coalesce(s.completion_tokens, excluded.completion_tokens),
       total_tokens = coalesce(s.total_tokens, excluded.total_tokens),
       cost_usd = coalesce(s.cost_usd, excluded.cost_usd),
       input = coalesce(s.input, excluded.input),
       output = coalesce(s.output, excluded.output),
       metadata = case when excluded.metadata is null then s.metadata else excluded.metadata || coalesce(s.metadata, '{}'::jsonb) end,
       start_time = excluded.start_time,
       end_time = coalesce(s.end_time, excluded.end_time),
       created = true
     where not s.created
     ${SPAN_CREATE_RETURNING}`,
  /** The fast path of createSpans: no conflict handling (see FAST_INSERT_MIN_ROWS). */
  insertSpans: `insert into spans as s (${SPAN_INSERT}, created)
     select ${SPAN_INSERT}, true from (${SPAN_ROWS}) as x
     ${SPAN_CREATE_RETURNING}`,
  updateSpans: `insert into spans as s (${SPAN_INSERT}, created)
     select ${SPAN_INSERT}, false from (${SPAN_ROWS}) as x
     on conflict (project_id, id) do update set
       trace_id = coalesce(s.trace_id, excluded.trace_id),
       parent_span_id = coalesce(excluded.parent_span_id, s.parent_span_id),
       name = coalesce(excluded.name, s.name),
       span_type = coalesce(excluded.span_type, s.span_type),
       status = coalesce(excluded.status, s.status),
       model = coalesce(excluded.model, s.model),
       prompt_tokens = coalesce(excluded.prompt_tokens, s.prompt_tokens),
       completion_tokens = coalesce(excluded.completion_tokens, s.completion_tokens),
       total_tokens = coalesce(excluded.total_tokens, s.total_tokens),
       cost_usd = coalesce(excluded.cost_usd, s.cost_usd),
       input = coalesce(excluded.input, s.input),
       output = coalesce(excluded.output, s.output),
       metadata = case when excluded.metadata is null then s.metadata else coalesce(s.metadata, '{}'::jsonb) || excluded.metadata end,
       start_time = coalesce(excluded.start_time, s.start_time),
       end_time = coalesce(excluded.end_time, s.end_time)
     ${SPAN_RETURNING}`,
  fixCosts: `update spans as s set cost_usd = x.cost_usd
     from jsonb_to_recordset(?::jsonb) as x(project_id uuid, id text, cost_usd numeric)
     where s.project_id = x.project_id and s.id = x.id`,
  complete: `update traces as t set completed_event_at = now()
     from jsonb_to_recordset(?::jsonb) as k(project_id uuid, id text)
     where t.project_id = k.project_id and t.id = k.id
       and t.completed_event_at is null and t.created and t.end_time is not null and t.status <> 'running'
       and not exists (select 1 from spans s where s.project_id = t.project_id and s.trace_id = t.id and s.end_time is null)
     returning t.org_id, t.project_id, t.id, t.status, t.end_time, t.duration_ms`,
};

const key = (projectId: string, id: string) => `${projectId}\u0000${id}`;
/** ISO timestamps in the same UTC form compare as strings; anything else is parsed. */
const earlier = (a: string, b: string) =>
  a.length === b.length && a.endsWith('Z') && b.endsWith('Z') ? a < b : Date.parse(a) < Date.parse(b);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type Row = Record<string, unknown>;

async function rows(db: Knex | Knex.Transaction, sql: string, payload: unknown[]): Promise<Row[]> {
  const res = await db.raw(sql, [toPgJson(payload)]);
  return res.rows as Row[];
}

export async function applyUnits(trx: Knex.Transaction, units: readonly IngestUnit[]): Promise<{ results: OpResult[][]; completed: CompletedTrace[] }> {
  const results: OpResult[][] = units.map((u) => new Array<OpResult>(u.ops.length));
  const located: Located[] = [];
  const seen = new Map<string, number>();
  units.forEach((u, unit) =>
    u.ops.forEach((op, index) => {
      const entity = `${op.op.startsWith('trace') ? 't' : 's'}${key(u.projectId, op.id)}`;
      const round = seen.get(entity) ?? 0;
      seen.set(entity, round + 1);
      located.push({ unit, index, op, projectId: u.projectId, orgId: u.orgId, source: u.source, round });
    }),
  );

  // Traces of span updates that do not name theirs (they may already be stored).
  const spanTrace = new Map<string, string>();
  const unknownTrace = located.filter((l) => l.op.op === 'span.update' && !l.op.fields.trace_id);
  if (unknownTrace.length) {
    const found = await rows(trx, SQL.lookupSpanTraces, unknownTrace.map((l) => ({ project_id: l.projectId, id: l.op.id })));
    for (const r of found) spanTrace.set(key(r.project_id as string, r.id as string), r.trace_id as string);
  }

  // 1. Upsert and lock every trace involved, in key order.
  const locks = new Map<string, { project_id: string; id: string; org_id: string; start_time?: string }>();
  const touch = (l: Located, traceId: string | undefined, start: string | undefined) => {
    if (!traceId) return;
    const k = key(l.projectId, traceId);
    const cur = locks.get(k);
    if (!cur) locks.set(k, { project_id: l.projectId, id: traceId, org_id: l.orgId, start_time: start });
    else if (start && (!cur.start_time || earlier(start, cur.start_time))) cur.start_time = start;
  };
  for (const l of located) {
    const f = l.op.fields;
    if (l.op.op === 'trace.create' || l.op.op === 'trace.update') touch(l, l.op.id, f.start_time);
    else touch(l, (f as { trace_id?: string }).trace_id ?? spanTrace.get(key(l.projectId, l.op.id)), f.start_time);
  }
  const lockRows = [...locks.values()].sort((a, b) => cmp(a.project_id, b.project_id) || cmp(a.id, b.id));
  if (lockRows.length) await trx.raw(SQL.lockTraces, [toPgJson(lockRows)]);

  // 2. Apply the operations round by round.
  let rounds = 0;
  for (const l of located) rounds = Math.max(rounds, l.round + 1);
  const spanRows = new Map<string, Row>();
  for (let round = 0; round < rounds; round++) {
    const of = (kind: IngestOp['op']) => located.filter((l) => l.round === round && l.op.op === kind);
    const traceCreates = of('trace.create');
    const traceUpdates = of('trace.update');
    const spanCreates = of('span.create');
    const spanUpdates = of('span.update');

    if (traceCreates.length) {
      const filled = new Set((await rows(trx, SQL.createTraces, traceCreates.map(traceRow))).map((r) => key(r.project_id as string, r.id as string)));
      for (const l of traceCreates) {
        results[l.unit]![l.index] = filled.has(key(l.projectId, l.op.id))
          ? { ok: true, status: 201, created: true }
          : { ok: true, status: 200, created: false, replayed: true };
      }
    }
    if (traceUpdates.length) {
      const done = new Map((await rows(trx, SQL.updateTraces, traceUpdates.map(traceRow))).map((r) => [key(r.project_id as string, r.id as string), r]));
      for (const l of traceUpdates) {
        const r = done.get(key(l.projectId, l.op.id));
        results[l.unit]![l.index] = { ok: true, status: 200, pending_create: r ? !r.created : true };
      }
    }
    if (spanCreates.length) {
      const out = await createSpans(trx, sortByKey(spanCreates));
      const filled = new Set<string>();
      for (const r of out) {
        const k = key(r.project_id as string, r.id as string);
        filled.add(k);
        const price = r.price_input as [string, number | null, number | null] | null;
        if (price) spanRows.set(k, { project_id: r.project_id, id: r.id, model: price[0], prompt_tokens: price[1], completion_tokens: price[2], cost_usd: null });
      }
      for (const l of spanCreates) {
        results[l.unit]![l.index] = filled.has(key(l.projectId, l.op.id))
          ? { ok: true, status: 201, created: true }
          : { ok: true, status: 200, created: false, replayed: true };
      }
    }
    if (spanUpdates.length) {
      const out = await spanStatement(trx, SQL.updateSpans, sortByKey(spanUpdates));
      const done = new Map<string, Row>();
      for (const r of out) {
        const k = key(r.project_id as string, r.id as string);
        done.set(k, r);
        spanRows.set(k, r);
      }
      for (const l of spanUpdates) {
        const r = done.get(key(l.projectId, l.op.id));
        results[l.unit]![l.index] = { ok: true, status: 200, pending_create: r ? !r.created : true };
      }
    }
  }

  // Cost needs model and tokens together; they may arrive in different operations (create, then
  // an update with usage), so it is recomputed from the stored values and fixed where it differs.
  const fixes: { project_id: string; id: string; cost_usd: number | null }[] = [];
  for (const r of spanRows.values()) {
    const want = spanCostUsd(r.model as string | null, r.prompt_tokens as number | null, r.completion_tokens as number | null);
    const have = r.cost_usd as number | null;
    if (want === have || (want !== null && have !== null && Math.abs(want - have) < 1e-10)) continue;
    if (want === null) continue; // keep a cost we cannot recompute (e.g. model unknown to the catalogue now)
    fixes.push({ project_id: r.project_id as string, id: r.id as string, cost_usd: want });
  }
  if (fixes.length) await trx.raw(SQL.fixCosts, [toPgJson(fixes)]);

  // 3. Completion: exactly once per trace, in this transaction.
  const completed: CompletedTrace[] = [];
  if (lockRows.length) {
    const done = await rows(
      trx,
      SQL.complete,
      lockRows.map((r) => ({ project_id: r.project_id, id: r.id })),
    );
    for (const r of done) completed.push(completedTraceFromRow(r));
    if (completed.length) await emitEvents(trx, completed.map(traceCompletedEvent));
  }
  return { results, completed };
}

/** A trace row (org_id, project_id, id, status, end_time, duration_ms) that was just marked completed. */
export function completedTraceFromRow(r: Record<string, unknown>): CompletedTrace {
  return {
    orgId: r.org_id as string,
    projectId: r.project_id as string,
    id: r.id as string,
    status: r.status as string,
    endedAt: (r.end_time as Date).toISOString(),
    durationMs: r.duration_ms === null ? null : Math.round(r.duration_ms as number),
  };
}

export function traceCompletedEvent(c: CompletedTrace) {
  return {
    orgId: c.orgId,
    kind: 'trace.completed' as const,
    object: { trace: { id: c.id, status: c.status, ended_at: c.endedAt, duration_ms: c.durationMs } },
  };
}

function sortByKey(list: Located[]): Located[] {
  // A stable row order keeps concurrent multi-row upserts from locking the same spans in opposite orders.
  return [...list].sort((a, b) => cmp(a.projectId, b.projectId) || cmp(a.op.id, b.op.id));
}

function traceRow(l: Located): Row {
  return { project_id: l.projectId, id: l.op.id, source: l.source, ...l.op.fields };
}

/**
 * Large span creates (OTLP exports, SDK batches) are almost always new spans: a plain INSERT is
 * ~20% cheaper for PostgreSQL than INSERT … ON CONFLICT. It runs under a savepoint; if any span
 * already exists (a retried export, a create filling an update's placeholder) the savepoint is
 * rolled back and the conflict-handling upsert does the work.
 */
const FAST_INSERT_MIN_ROWS = 50;

async function createSpans(trx: Knex.Transaction, list: Located[]): Promise<Row[]> {
  if (list.length < FAST_INSERT_MIN_ROWS) return spanStatement(trx, SQL.createSpans, list);
  await trx.raw('savepoint span_fast_insert');
  try {
    const out = await spanStatement(trx, SQL.insertSpans, list);
    await trx.raw('release savepoint span_fast_insert');
    return out;
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    await trx.raw('rollback to savepoint span_fast_insert');
    return spanStatement(trx, SQL.createSpans, list);
  }
}

async function spanStatement(trx: Knex.Transaction, sql: string, list: Located[]): Promise<Row[]> {
  const projects: string[] = [];
  const index = new Map<string, number>();
  const payload = list.map((l) => {
    let p = index.get(l.projectId);
    if (p === undefined) {
      projects.push(l.projectId);
      index.set(l.projectId, (p = projects.length));
    }
    return spanRow(p, l);
  });
  const res = await trx.raw(sql, [projects, toPgJson(payload)]);
  return res.rows as Row[];
}

/** Positional row for SPAN_ROWS (undefined serializes as null: "not sent"). */
function spanRow(projectIndex: number, l: Located): unknown[] {
  const f = l.op.fields as SpanFields;
  return [
    projectIndex,
    l.op.id,
    f.trace_id,
    f.parent_span_id,
    f.name,
    f.span_type,
    f.status,
    f.model,
    f.prompt_tokens,
    f.completion_tokens,
    f.total_tokens,
    spanCostUsd(f.model, f.prompt_tokens, f.completion_tokens),
    f.input,
    f.output,
    f.metadata,
    f.start_time,
    f.end_time,
  ];
}
