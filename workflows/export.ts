import { CancellationScope, ContinueAsNew, continueAsNew, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ExportActivities } from '../activities/exports';

export interface ExportState {
  part: number;
  cursor: string | null;
  rows: number;
}
/** Parts per execution before continuing as new: a 100-million-row export keeps a short history. */
export const PARTS_PER_EXECUTION = 200;

const { sweepExpiredExports } = proxyActivities<ExportActivities>({
  startToCloseTimeout: '30 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * An export (`export-<id>`, docs/exports.md): part after part, each an activity on the export task
 * queue that writes up to EXPORT_PART_ROWS rows from a keyset cursor and answers the next cursor. The state
 * (part, cursor, rows) lives in the workflow, so after a worker restart the unfinished part is
 * written again from its own cursor: no row twice, none missing. The parts are then joined into
 * the file. Cancelling removes the parts and marks the export cancelled.
 */
export async function exportWorkflow(
  exportId: string,
  taskQueue: string,
  state: ExportState = { part: 0, cursor: null, rows: 0 },
): Promise<{ status: string; rows: number }> {
  const short = proxyActivities<ExportActivities>({
    taskQueue,
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 5, initialInterval: '1 second' },
  });
  const long = proxyActivities<ExportActivities>({
    taskQueue,
    startToCloseTimeout: '2 hours',
    // Every page heartbeats (about every 1,000 rows): a killed worker is noticed in seconds.
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 8, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  try {
    if (state.part === 0 && !(await short.prepareExport(exportId)).proceed) return { status: 'cancelled', rows: 0 };
    for (let n = 0; ; n++) {
      if (n === PARTS_PER_EXECUTION) await continueAsNew<typeof exportWorkflow>(exportId, taskQueue, state);
      const r = await long.writeExportPart(exportId, state.part, state.cursor, state.rows);
      state = { part: state.part + 1, cursor: r.cursor, rows: state.rows + r.rows };
      if (!r.cursor) break;
    }
    await long.finalizeExport(exportId, state.part);
    return { status: 'completed', rows: state.rows };
  } catch (err) {
    // Continuing as new is thrown through here: it is the same export going on, not a failure.
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => short.endExport(exportId, 'cancelled'));
      throw err;
    }
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    await CancellationScope.nonCancellable(() => short.endExport(exportId, 'failed', cause));
    throw err;
  }
}

/** The `export-cleanup` schedule: deletes the files of exports past EXPORT_TTL_HOURS. */
export async function exportCleanupWorkflow(): Promise<{ expired: number }> {
  return { expired: await sweepExpiredExports() };
}
