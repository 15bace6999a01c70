import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { HttpError } from '../src/http/errors';
import { end, ExportStopped, finalize, prepare, sweepExpired, writePart, type ExportRunDeps } from '../src/exports/run';
import type { ActivityDeps } from './deps';

/**
 * The export activities (src/exports/run.ts does the work). They run on the export task queue
 * (EXPORT_TASK_QUEUE), apart from deliveries; the cleanup sweep runs on the main queue.
 */
export function exportActivities({ db, logger, exportStore, config }: ActivityDeps) {
  const deps: ExportRunDeps = {
    db,
    store: exportStore,
    logger,
    ttlHours: config.EXPORT_TTL_HOURS,
    partRows: config.EXPORT_PART_ROWS,
  };
  return {
    prepareExport: (id: string) => guarded(() => prepare(deps, id)),
    writeExportPart: (id: string, part: number, cursor: string | null, rowsBefore: number) =>
      guarded(() => writePart(deps, id, part, cursor, rowsBefore, beat)),
    finalizeExport: (id: string, parts: number) => guarded(() => finalize(deps, id, parts, beat)),
    endExport: (id: string, status: 'failed' | 'cancelled', error?: string) => end(deps, id, status, error),
    sweepExpiredExports: () => sweepExpired(deps, new Date()),
  };
}

/** Heartbeats (so a dead worker is noticed within the heartbeat timeout) and stops when cancelled. */
function beat() {
  const ctx = Context.current();
  ctx.heartbeat();
  if (ctx.cancellationSignal.aborted) throw new CancelledFailure('export cancelled');
}

/** Errors a retry cannot fix (the export stopped, a 4xx of the resource) fail at once. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(), 5_000);
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ExportStopped || (err instanceof HttpError && err.status < 500))
      throw ApplicationFailure.nonRetryable((err as Error).message, 'ExportStopped');
    throw err;
  } finally {
    clearInterval(timer);
  }
}

/** The activities of the export workflows (workflows/export.ts): the one type that workflow imports. */
export type ExportActivities = ReturnType<typeof exportActivities>;
