import {
  ActivityFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { ExperimentActivities } from '../activities/experiments';

const { nextExperimentItems, failExperimentItem, finishExperiment } = proxyActivities<ExperimentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});
// A model answering 429/5xx is retried with exponential backoff; heartbeats move a dead worker's item on.
const { runExperimentItem } = proxyActivities<ExperimentActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 6, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const PAGE = 100;
const PER_EXECUTION = 500;

/**
 * An experiment (`experiment-<id>`): runs the prompt subject over every pending (item, repetition)
 * with at most `concurrency` at once, scoring each; the item rows say what is left, so a worker
 * restart resumes and a continue-as-new keeps the history short. Cancelling marks it cancelled.
 */
export async function experimentWorkflow(
  experimentId: string,
  concurrency = 8,
  after: string | null = null,
): Promise<{ status: string }> {
  try {
    let cursor = after;
    let done = 0;
    for (;;) {
      const page = await nextExperimentItems(experimentId, cursor, PAGE);
      if (!page.length) break;
      let next = 0;
      const lane = async () => {
        while (next < page.length) {
          const { item_id, repetition } = page[next++]!;
          try {
            await runExperimentItem(experimentId, item_id, repetition);
          } catch (err) {
            if (isCancellation(err)) throw err;
            const reason = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
            await failExperimentItem(experimentId, item_id, repetition, `gave up after retries: ${reason}`);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, page.length) }, lane));
      cursor = page.at(-1)!.key;
      done += page.length;
      if (done >= PER_EXECUTION) await continueAsNew<typeof experimentWorkflow>(experimentId, concurrency, cursor);
    }
    await finishExperiment(experimentId, 'completed');
    return { status: 'completed' };
  } catch (err) {
    // Continuing as new is thrown through here: the same experiment going on, not a failure.
    if (err instanceof ContinueAsNew) throw err;
    // A failure retries could not mend ends the experiment failed with its cause (never left `running`).
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => finishExperiment(experimentId, 'cancelled'));
    else
      await CancellationScope.nonCancellable(() =>
        finishExperiment(
          experimentId,
          'failed',
          (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message,
        ),
      );
    throw err;
  }
}
