import type { Knex } from 'knex';
import type { AppContext } from '../context';
import { emitEvents } from '../events/outbox';
import type { CompletedTraceRow } from './queries';
import { completedTraceFromRow, traceCompletedEvent, type CompletedTrace } from './store';

/**
 * Spans that never close (a crashed worker, an SDK that lost its end call) would keep an ended
 * trace from ever completing. The sweeper completes ended traces (end_time and a final status
 * stored) that still have an open span once the trace has seen no ingest activity for
 * INGEST_TRACE_IDLE_TIMEOUT_MS: trace.completed is emitted then, through the same once-only flag.
 * Open spans stay open (their end is unknown). Runs in the worker role; several workers may run it
 * at once (SKIP LOCKED, and the flag is set by a conditional UPDATE).
 */
export async function sweepIdleTraces(db: Knex, idleMs: number, limit = 500): Promise<CompletedTrace[]> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: CompletedTraceRow[] }>(
      `with due as (
         select project_id, id from traces
          where completed_event_at is null and end_time is not null
            and end_time < now() - make_interval(secs => ?) and updated_at < now() - make_interval(secs => ?)
            and created and status <> 'running'
          order by end_time
          limit ?
          for update skip locked)
       update traces t set completed_event_at = now()
         from due where t.project_id = due.project_id and t.id = due.id and t.completed_event_at is null
       returning t.org_id, t.project_id, t.id, t.status, t.end_time, t.duration_ms`,
      [idleMs / 1000, idleMs / 1000, limit],
    );
    const completed: CompletedTrace[] = rows.map(completedTraceFromRow);
    if (completed.length) await emitEvents(trx, completed.map(traceCompletedEvent));
    return completed;
  });
}

/** Worker-role background service (src/runtime.ts): a runtime-owned periodic task. */
export async function traceSweeperService(ctx: AppContext): Promise<{ stop(): Promise<void> }> {
  const idleMs = ctx.config.INGEST_TRACE_IDLE_TIMEOUT_MS;
  if (idleMs === 0) return { stop: async () => undefined };
  const log = ctx.logger.child({ component: 'trace-sweeper' });
  let running: Promise<void> | undefined;
  const sweep = async () => {
    try {
      // Drain in pages so a backlog is cleared in one tick without one huge transaction.
      for (;;) {
        const done = await sweepIdleTraces(ctx.db, idleMs);
        if (done.length) log.info({ completed: done.length }, 'completed idle traces with open spans');
        if (done.length < 500) break;
      }
    } catch (err) {
      log.error({ err }, 'trace sweep failed');
    }
  };
  ctx.every('trace-sweep', ctx.config.INGEST_SWEEP_INTERVAL_MS, () => (running = sweep()));
  // The runtime stops the timer; a sweep in flight finishes before the pool closes.
  return { stop: async () => void (await running) };
}
