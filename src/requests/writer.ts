import type { Knex } from 'knex';
import { notifySql, outboxFromSql, outboxJson, type OutboxEvent } from '../events/outbox';
import { storableText } from '../http/text';
import { addTokens } from '../rate-limits/admission';
import { pendingFromSql } from '../analytics/fold';
import { requestsQueueFromSql } from '../security/queue';
import type { RequestRow } from './row';

export type { RequestRow } from './row';

/*
 * The request log's writer: how a `requests` row is stored with what goes with it (its
 * `request.created` event, rate-limit tokens, the rollups' pending mark, the security scan queue).
 * The proxy's batch writer (src/proxy/log-writer.ts) and the gateway's own model calls (src/llm) use it.
 */

export interface LogEntry {
  row: RequestRow;
  /** Window the call was admitted in, when an end-user rate limit applied: its tokens are added there. */
  rateLimit?: { projectId: string; userId: string; windowStart: Date } | undefined;
  /** The row already serialised (for the journal): used for the insert while it is still this row's. */
  json?: { of: RequestRow; text: string } | undefined;
}

/** The `request.created` event body: exactly the request fields the spec lists. */
function requestCreatedEvent(row: RequestRow): OutboxEvent {
  return {
    orgId: row.org_id,
    kind: 'request.created',
    object: {
      request: {
        id: row.id,
        provider: row.provider,
        model: row.model,
        prompt_tokens: row.prompt_tokens,
        completion_tokens: row.completion_tokens,
        total_tokens: row.total_tokens,
        cost_usd: row.cost_usd,
        latency_ms: row.latency_ms,
        status_code: row.status_code,
        trace_id: row.trace_id,
        created_at: row.created_at,
      },
    },
  };
}

/**
 * The row with every text column storable (NUL removed, lone surrogates → U+FFFD): whoever built
 * it, PostgreSQL's JSON input would otherwise reject the whole batch (22P02) over one bad string.
 */
export function storableRow(row: RequestRow): RequestRow {
  let out: RequestRow | undefined;
  // for…in, not Object.entries: this runs on every proxied call, and allocates nothing when clean.
  for (const k in row) {
    const v = row[k as keyof RequestRow];
    if (typeof v !== 'string') continue;
    const clean = storableText(v);
    if (clean !== v) (out ??= { ...row })[k as 'model'] = clean;
  }
  return out ?? row;
}

/** The batch as the JSON array the insert reads, reusing each row's journal serialisation. */
function rowsJson(batch: readonly LogEntry[]): string {
  let out = '[';
  for (let i = 0; i < batch.length; i++) {
    const e = batch[i]!;
    if (i) out += ',';
    out += e.json && e.json.of === e.row ? e.json.text : JSON.stringify(e.row);
  }
  return out + ']';
}

/**
 * What is kept of a row the database refused even alone: the call still happened and was
 * answered, so its ids, status and timing are stored and the reason is put in `error`.
 */
export function minimalRow(row: RequestRow, err: unknown): RequestRow {
  const code = (err as { code?: unknown })?.code;
  return {
    ...row,
    model: '',
    path: '',
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: null,
    trace_id: null,
    span_id: null,
    user_id: null,
    session_id: null,
    request_body: '',
    response_body: '',
    log_mode: 'none',
    prompt_version_id: null,
    properties: null,
    cost_saved_usd: null,
    error: `log_row_rejected${typeof code === 'string' ? ` (${code})` : ''}${row.error ? `: ${row.error}` : ''}`.slice(
      0,
      200,
    ),
  };
}

/**
 * Inserts the rows with, for those actually inserted, their `request.created` outbox rows, the
 * rollups' pending mark and the security scan queue entry, in one statement (one round trip, atomic
 * without a transaction), then the rate-limit token counts of rows admitted under a limit (pass a
 * transaction when any entry has `rateLimit`). Idempotent by id, so a journal replayed after a crash
 * adds neither a second row nor a second event (a replayed row keeps its created_at, so its key
 * (id, created_at) is the same). Returns the entries that were new.
 */
export async function insertRequestRows<T extends LogEntry>(
  db: Knex | Knex.Transaction,
  batch: readonly T[],
  opts: { rollups?: boolean } = {},
): Promise<T[]> {
  // One event per id: an id repeated in one batch (a journal replayed twice) is inserted once.
  const seen = new Set<string>();
  const events: (OutboxEvent & { id: string })[] = [];
  for (const e of batch)
    if (!seen.has(e.row.id) && seen.add(e.row.id)) events.push({ id: e.row.id, ...requestCreatedEvent(e.row) });
  // `rollups: false` only in bench/analytics.ts, to measure what the rollups cost the writer.
  const pending = opts.rollups !== false ? `, pend as (${pendingFromSql('fresh')})` : '';
  const result = await db.raw<{ rows: { id: string }[] }>(
    `with fresh as (
       insert into requests select * from json_populate_recordset(null::requests, ?::json)
       on conflict (id, created_at) do nothing
       returning id, created_at, (request_body <> '' or response_body <> '') as has_body)
     ${pending}
     , scan as (${requestsQueueFromSql('fresh', 'has_body')})
     , ev as (${outboxFromSql('?::json', 'fresh')})
     select id, ${notifySql('ev')} as notified from fresh`,
    [rowsJson(batch), outboxJson(events)],
  );
  const inserted = new Set(result.rows.map((r) => r.id));
  // delete(): an id repeated in one batch counts once.
  const fresh = batch.filter((e) => inserted.delete(e.row.id));
  const limited = fresh.filter((e) => e.rateLimit && e.row.total_tokens > 0);
  if (limited.length) {
    await addTokens(
      db,
      limited.map((e) => ({ ...e.rateLimit!, tokens: e.row.total_tokens })),
    );
  }
  return fresh;
}

// data exceptions, constraint violations, bad SQL: retrying the same rows cannot help
const PERMANENT_PG_ERRORS = /^(22|23|42)/;

/**
 * A log entry as one journal line, the inverse of {@link fromRecord}. The row's JSON is kept on the
 * entry for the insert, so a proxied call's row is serialised once, not twice. From then on the JSON
 * carries the bodies, so the row lets go of its own: a row waits ~50 ms for its batch, long enough for
 * the young generation's collections to copy and promote it, and the bodies are most of its bytes.
 */
export function journalLine(e: LogEntry): string {
  const text = JSON.stringify(e.row);
  e.row.request_body = e.row.response_body = '';
  e.json = { of: e.row, text };
  return e.rateLimit ? `{"row":${text},"rateLimit":${JSON.stringify(e.rateLimit)}}\n` : `{"row":${text}}\n`;
}

/** A journal record back into a log entry (dates were serialised as ISO strings). */
export function fromRecord(rec: unknown): (LogEntry & { replayed: true }) | undefined {
  const r = rec as { row?: RequestRow; rateLimit?: { projectId: string; userId: string; windowStart: string } };
  if (!r?.row || typeof r.row.id !== 'string') return undefined;
  const rl = r.rateLimit;
  return {
    row: storableRow(r.row),
    rateLimit: rl ? { ...rl, windowStart: new Date(rl.windowStart) } : undefined,
    replayed: true,
  };
}

export function isPermanent(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && PERMANENT_PG_ERRORS.test(code);
}
