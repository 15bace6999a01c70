import { Context } from '@temporalio/activity';
import { withLazyAjv } from '../src/evaluators/json-schema';
import { evaluateTarget, failTarget, finishRun, nextTargets, prepareRun } from '../src/eval-runs/execute';
import { collectOnline } from '../src/eval-runs/online';
import { createProxyPricer } from '../src/providers/cost';
import type { ActivityDeps } from './deps';

/**
 * Side effects of eval runs: target lists, evaluations (judge calls through the project's provider keys), run status.
 */
export function evalRunActivities({ db, keyring, config }: ActivityDeps) {
  const deps = withLazyAjv({ db, keyring, config, pricer: createProxyPricer() });
  return {
    prepareEvalRun: (runId: string) => prepareRun(db, runId),
    nextEvalTargets: (runId: string, after: string | null, limit: number) => nextTargets(db, runId, after, limit),
    evaluateEvalTarget: (runId: string, targetId: string) =>
      withHeartbeat((signal) => evaluateTarget({ ...deps, signal }, runId, targetId)),
    failEvalTarget: (runId: string, targetId: string, message: string) => failTarget(db, runId, targetId, message),
    finishEvalRun: (runId: string, status: 'completed' | 'cancelled' | 'failed', error?: string) =>
      finishRun(db, runId, status, error),
    collectOnlineTargets: (at: string | null) => collectOnline(db, at ? Date.parse(at) : Date.now()),
  };
}

/**
 * Heartbeats while the evaluation runs (a judge call can take a while): when the worker dies, the
 * server notices within the heartbeat timeout and retries elsewhere instead of waiting out the
 * whole start-to-close timeout. A cancel comes back with a heartbeat and aborts `signal`, so no
 * further evaluation of the target starts.
 */
async function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 2_000);
  try {
    return await fn(ctx.cancellationSignal);
  } finally {
    clearInterval(beat);
  }
}

/** The activities of the eval-run workflows (workflows/eval-run.ts): the one type that workflow imports. */
export type EvalRunActivities = ReturnType<typeof evalRunActivities>;
