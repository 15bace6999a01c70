import type { Knex } from 'knex';
import type { SpanPricer } from './cost';
import { toPgJson } from './pg-json';
import type { IngestOp, SpanFields } from './types';

/** SQL of the ingest write path (src/ingest/store.ts runs it, in the caller's transaction). */

/** One operation of a unit, with its position and the round it runs in (see store.ts). */
export interface Located {
  unit: number;
  index: number;
  op: IngestOp;
  projectId: string;
  orgId: string;
  source: 'sdk' | 'otlp';
  round: number;
}

/** What the statements return, as pg returns it (timestamps Date, numeric a number, json parsed). */
export interface SpanTraceRow {
  project_id: string;
  id: string;
  trace_id: string;
}
export interface CreatedTraceRow {
  project_id: string;
  id: string;
  user_id: string | null;
  start_time: Date;
}
export interface UpdatedTraceRow {
  project_id: string;
  id: string;
  created: boolean;
}
/** price_input: [model, prompt_tokens, completion_tokens] when the cost needs computing, else null. */
export interface CreatedSpanRow {
  project_id: string;
  id: string;
  price_input: [string, number | null, number | null] | null;
}
/** A span's pricing columns: what the cost fix reads. */
export interface SpanPriceRow {
  project_id: string;
  id: string;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost_usd: number | null;
}
export interface UpdatedSpanRow extends SpanPriceRow {
  created: boolean;
  trace_id: string | null;
}
/** A trace just marked completed (complete, and the sweeper's statement). */
export interface CompletedTraceRow {
  org_id: string;
  project_id: string;
  id: string;
  status: string;
  end_time: Date;
  duration_ms: number | null;
}

const TRACE_COLUMNS = `project_id uuid, id text, name text, session_id text, user_id text, metadata jsonb, input jsonb,
  output jsonb, start_time timestamptz, end_time timestamptz, status text, source text`;
/**
 * Span rows travel as one JSON array of positional arrays (not objects): repeating 17 key names
 * and the project uuid on every row made up a third of the payload PostgreSQL had to parse.
 * Element 0 indexes the project ids passed as a separate uuid[] parameter (1-based).
 */
const SPAN_ROWS = `select (?::uuid[])[(r->>0)::int] as project_id, r->>1 as id, r->>2 as trace_id,
    r->>3 as parent_span_id,
    r->>4 as name, r->>5 as span_type, r->>6 as status, r->>7 as model, (r->>8)::integer as prompt_tokens,
    (r->>9)::integer as completion_tokens, (r->>10)::integer as total_tokens, (r->>11)::numeric as cost_usd,
    nullif(r->12, 'null'::jsonb) as input, nullif(r->13, 'null'::jsonb) as output,
    nullif(r->14, 'null'::jsonb) as metadata,
    (r->>15)::timestamptz as start_time, (r->>16)::timestamptz as end_time
  from jsonb_array_elements(?::jsonb) as r`;
const SPAN_INSERT = `project_id, id, trace_id, parent_span_id, name, span_type, status, model, prompt_tokens,
  completion_tokens, total_tokens, cost_usd, input, output, metadata, start_time, end_time`;
const SPAN_RETURNING =
  'returning s.project_id, s.id, s.created, s.trace_id, s.model, s.prompt_tokens, s.completion_tokens, s.cost_usd';
/**
 * Creates usually carry model and tokens together, so their cost was computed before the insert;
 * only a create that filled a placeholder can need a recomputation, and only such rows return the
 * pricing columns (null elsewhere: less to send back and parse at thousands of spans per request).
 */
const SPAN_CREATE_RETURNING = `returning s.project_id, s.id,
  case when s.cost_usd is null and s.model is not null
        and (s.prompt_tokens is not null or s.completion_tokens is not null)
       then json_build_array(s.model, s.prompt_tokens, s.completion_tokens) end as price_input`;

export const SQL = {
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
     returning t.project_id, t.id, t.user_id, t.start_time`,
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
       metadata = case when excluded.metadata is null then s.metadata
                       else excluded.metadata || coalesce(s.metadata, '{}'::jsonb) end,
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
       metadata = case when excluded.metadata is null then s.metadata
                       else coalesce(s.metadata, '{}'::jsonb) || excluded.metadata end,
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
       and not exists (select 1 from spans s
                        where s.project_id = t.project_id and s.trace_id = t.id and s.end_time is null)
     returning t.org_id, t.project_id, t.id, t.status, t.end_time, t.duration_ms`,
};

export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Runs a statement whose one parameter is a JSON array of row objects. */
export async function rows<R>(db: Knex | Knex.Transaction, sql: string, payload: unknown[]): Promise<R[]> {
  const res = await db.raw<{ rows: R[] }>(sql, [toPgJson(payload)]);
  return res.rows;
}

export function sortByKey(list: Located[]): Located[] {
  // A stable row order keeps concurrent multi-row upserts from locking the same spans in opposite orders.
  return [...list].sort((a, b) => cmp(a.projectId, b.projectId) || cmp(a.op.id, b.op.id));
}

export function traceRow(l: Located) {
  return { project_id: l.projectId, id: l.op.id, source: l.source, ...l.op.fields };
}

/**
 * Large span creates (OTLP exports, SDK batches) are almost always new spans: a plain INSERT is
 * ~20% cheaper for PostgreSQL than INSERT … ON CONFLICT. It runs under a savepoint; if any span
 * already exists (a retried export, a create filling an update's placeholder) the savepoint is
 * rolled back and the conflict-handling upsert does the work.
 */
const FAST_INSERT_MIN_ROWS = 50;

export async function createSpans(
  trx: Knex.Transaction,
  list: Located[],
  price: SpanPricer,
): Promise<CreatedSpanRow[]> {
  if (list.length < FAST_INSERT_MIN_ROWS) return spanStatement<CreatedSpanRow>(trx, SQL.createSpans, list, price);
  await trx.raw('savepoint span_fast_insert');
  try {
    const out = await spanStatement<CreatedSpanRow>(trx, SQL.insertSpans, list, price);
    await trx.raw('release savepoint span_fast_insert');
    return out;
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    await trx.raw('rollback to savepoint span_fast_insert');
    return spanStatement<CreatedSpanRow>(trx, SQL.createSpans, list, price);
  }
}

export async function spanStatement<R>(
  trx: Knex.Transaction,
  sql: string,
  list: Located[],
  price: SpanPricer,
): Promise<R[]> {
  const projects: string[] = [];
  const index = new Map<string, number>();
  const payload = list.map((l) => {
    let p = index.get(l.projectId);
    if (p === undefined) {
      projects.push(l.projectId);
      index.set(l.projectId, (p = projects.length));
    }
    return spanRow(p, l, price);
  });
  const res = await trx.raw<{ rows: R[] }>(sql, [projects, toPgJson(payload)]);
  return res.rows;
}

/** Positional row for SPAN_ROWS (undefined serializes as null: "not sent"). */
function spanRow(projectIndex: number, l: Located, price: SpanPricer): unknown[] {
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
    price(f.model, f.prompt_tokens, f.completion_tokens),
    f.input,
    f.output,
    f.metadata,
    f.start_time,
    f.end_time,
  ];
}
