import type { Knex } from 'knex';
import { touchTraceUsers } from '../analytics/trace-users';
import { emitEvents } from '../events/outbox';
import { enqueueProjectRefs } from '../security/queue';
import type { SpanPricer } from './cost';
import { toPgJson } from './pg-json';
import { cmp, createSpans, rows, sortByKey, spanStatement, SQL, traceRow, type Located } from './queries';
import type * as q from './queries';
import { isoText } from '../db/convert';
import type { IngestOp, IngestUnit, OpResult } from './types';

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

export interface CompletedTrace {
  orgId: string;
  projectId: string;
  id: string;
  status: string;
  endedAt: string;
  durationMs: number | null;
}

const key = (projectId: string, id: string) => `${projectId}\u0000${id}`;
/** ISO timestamps in the same UTC form compare as strings; anything else is parsed. */
const earlier = (a: string, b: string) =>
  a.length === b.length && a.endsWith('Z') && b.endsWith('Z') ? a < b : Date.parse(a) < Date.parse(b);

export async function applyUnits(
  trx: Knex.Transaction,
  units: readonly IngestUnit[],
  price: SpanPricer,
): Promise<{ results: OpResult[][]; completed: CompletedTrace[] }> {
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
    const refs = unknownTrace.map((l) => ({ project_id: l.projectId, id: l.op.id }));
    const found = await rows<q.SpanTraceRow>(trx, SQL.lookupSpanTraces, refs);
    for (const r of found) spanTrace.set(key(r.project_id, r.id), r.trace_id);
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
  const spanRows = new Map<string, q.SpanPriceRow>();
  for (let round = 0; round < rounds; round++) {
    const of = (kind: IngestOp['op']) => located.filter((l) => l.round === round && l.op.op === kind);
    const traceCreates = of('trace.create');
    const traceUpdates = of('trace.update');
    const spanCreates = of('span.create');
    const spanUpdates = of('span.update');

    if (traceCreates.length) {
      const created = await rows<q.CreatedTraceRow>(trx, SQL.createTraces, traceCreates.map(traceRow));
      const filled = new Set(created.map((r) => key(r.project_id, r.id)));
      // End users of traces: counted once, when the trace is created (GET /users).
      const withUser = created.filter((r) => r.user_id !== null);
      const users = withUser.map((r) => ({ projectId: r.project_id, userId: r.user_id!, at: isoText(r.start_time) }));
      if (withUser.length) await touchTraceUsers(trx, users);
      for (const l of traceCreates) {
        results[l.unit]![l.index] = filled.has(key(l.projectId, l.op.id))
          ? { ok: true, status: 201, created: true }
          : { ok: true, status: 200, created: false, replayed: true };
      }
    }
    if (traceUpdates.length) {
      const updated = await rows<q.UpdatedTraceRow>(trx, SQL.updateTraces, traceUpdates.map(traceRow));
      const done = new Map(updated.map((r) => [key(r.project_id, r.id), r]));
      for (const l of traceUpdates) {
        const r = done.get(key(l.projectId, l.op.id));
        results[l.unit]![l.index] = { ok: true, status: 200, pending_create: r ? !r.created : true };
      }
    }
    if (spanCreates.length) {
      const out = await createSpans(trx, sortByKey(spanCreates), price);
      const filled = new Set<string>();
      for (const r of out) {
        const k = key(r.project_id, r.id);
        filled.add(k);
        const price = r.price_input;
        if (price)
          spanRows.set(k, {
            project_id: r.project_id,
            id: r.id,
            model: price[0],
            prompt_tokens: price[1],
            completion_tokens: price[2],
            cost_usd: null,
          });
      }
      for (const l of spanCreates) {
        results[l.unit]![l.index] = filled.has(key(l.projectId, l.op.id))
          ? { ok: true, status: 201, created: true }
          : { ok: true, status: 200, created: false, replayed: true };
      }
    }
    if (spanUpdates.length) {
      const out = await spanStatement<q.UpdatedSpanRow>(trx, SQL.updateSpans, sortByKey(spanUpdates), price);
      const done = new Map<string, q.UpdatedSpanRow>();
      for (const r of out) {
        const k = key(r.project_id, r.id);
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
    const want = price(r.model, r.prompt_tokens, r.completion_tokens);
    const have = r.cost_usd;
    if (want === have || (want !== null && have !== null && Math.abs(want - have) < 1e-10)) continue;
    if (want === null) continue; // keep a cost we cannot recompute (e.g. model unknown to the catalogue now)
    fixes.push({ project_id: r.project_id, id: r.id, cost_usd: want });
  }
  if (fixes.length) await trx.raw(SQL.fixCosts, [toPgJson(fixes)]);
  // Input and output go to the security scanner's queue (docs/security.md).
  const scanned = located.filter((l) => l.op.fields.input !== undefined || l.op.fields.output !== undefined);
  for (const source of ['span', 'trace'] as const) {
    await enqueueProjectRefs(
      trx,
      source,
      scanned.filter((l) => l.op.op.startsWith(source)).map((l) => ({ projectId: l.projectId, id: l.op.id })),
    );
  }

  // 3. Completion: exactly once per trace, in this transaction.
  const completed: CompletedTrace[] = [];
  if (lockRows.length) {
    const done = await rows<q.CompletedTraceRow>(
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
export function completedTraceFromRow(r: q.CompletedTraceRow): CompletedTrace {
  return {
    orgId: r.org_id,
    projectId: r.project_id,
    id: r.id,
    status: r.status,
    endedAt: isoText(r.end_time),
    durationMs: r.duration_ms === null ? null : Math.round(r.duration_ms),
  };
}

export function traceCompletedEvent(c: CompletedTrace) {
  return {
    orgId: c.orgId,
    kind: 'trace.completed' as const,
    object: { trace: { id: c.id, status: c.status, ended_at: c.endedAt, duration_ms: c.durationMs } },
  };
}
