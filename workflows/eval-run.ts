import {
  ActivityFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { EvalRunActivities } from '../activities/eval-runs';

const { prepareEvalRun, nextEvalTargets, finishEvalRun, failEvalTarget, collectOnlineTargets } =
  proxyActivities<EvalRunActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 10, initialInterval: '1 second' },
  });
// A target's evaluations: judge calls answered 429/5xx are retried with exponential backoff.
const { evaluateEvalTarget } = proxyActivities<EvalRunActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 6, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Targets per execution before continuing as new, so a 10,000-target run keeps a short history. */
export const TARGETS_PER_EXECUTION = 500;
const PAGE = 100;

export interface EvalRunState {
  prepared: boolean;
  after: string | null;
}

/**
 * An eval run (`eval-run-<id>`): lists its targets once, then evaluates them page by page with at
 * most `concurrency` activities at once. The items in PostgreSQL say what is left, so a worker
 * restart or a continue-as-new resumes where the run was. Cancelling marks the run cancelled; a
 * failure that retries could not mend (preparation, a page that cannot be read) marks it failed with
 * the cause, so no run stays `running` after its workflow ended.
 */
export async function evalRunWorkflow(
  runId: string,
  concurrency = 8,
  state: EvalRunState = { prepared: false, after: null },
): Promise<{ status: string }> {
  try {
    if (!state.prepared) await prepareEvalRun(runId);
    const r = await evaluatePending(runId, concurrency, state.after, TARGETS_PER_EXECUTION);
    if (!r.finished)
      await continueAsNew<typeof evalRunWorkflow>(runId, concurrency, { prepared: true, after: r.after });
    await finishEvalRun(runId, 'completed');
    return { status: 'completed' };
  } catch (err) {
    // Continuing as new is thrown through here: the same run going on, not a failure.
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => finishEvalRun(runId, 'cancelled'));
    else await CancellationScope.nonCancellable(() => finishEvalRun(runId, 'failed', failureMessage(err)));
    throw err;
  }
}

/**
 * Evaluates the run's unfinished targets after `after`, page by page, `concurrency` at once, until
 * none is left (`finished`) or `budget` targets were done. A target whose activity gave up for
 * good has its items marked `error`; the run goes on.
 */
async function evaluatePending(
  runId: string,
  concurrency: number,
  after: string | null,
  budget: number,
): Promise<{ after: string | null; finished: boolean }> {
  let done = 0;
  for (;;) {
    const page = await nextEvalTargets(runId, after, PAGE);
    if (!page.length) return { after, finished: true };
    await pool(page, concurrency, async (targetId) => {
      try {
        await evaluateEvalTarget(runId, targetId);
      } catch (err) {
        if (isCancellation(err)) throw err;
        const cause = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
        await failEvalTarget(runId, targetId, `gave up after retries: ${cause}`);
      }
    });
    after = page.at(-1)!;
    done += page.length;
    if (done >= budget) return { after, finished: false };
  }
}

/**
 * The `online-evaluation` schedule (every minute): queues the new matching traffic of every online
 * evaluator, then evaluates what its rolling run has pending (a backlog continues next tick).
 */
export async function onlineEvaluationWorkflow(at?: string): Promise<{ runs: number }> {
  const runs = await collectOnlineTargets(at ?? null);
  for (const runId of runs) await evaluatePending(runId, 8, null, TARGETS_PER_EXECUTION);
  return { runs: runs.length };
}

/** Runs `fn` over `items` with at most `n` in flight (deterministic: promises only). */
async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
}

/** The root cause's message of a workflow failure (an activity failure wraps the activity's error). */
const failureMessage = (err: unknown) =>
  (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
