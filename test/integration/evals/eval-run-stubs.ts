import type { EvalRunActivities } from '../../../activities/eval-runs';
import { attemptNow } from '../../helpers/stubbed-workflow';

/** The eval-run workflow's activities as plain functions, for the stubbed-workflow tests. */
type Stubbed = Pick<
  EvalRunActivities,
  'prepareEvalRun' | 'nextEvalTargets' | 'evaluateEvalTarget' | 'failEvalTarget' | 'finishEvalRun'
>;
type Evaluate = (targetId: string, attempt: number) => Promise<void>;

const targetsOf = (n: number) => Array.from({ length: n }, (_, i) => `t${String(i).padStart(4, '0')}`);

/** Stubs over `total` targets served by keyset cursor; every call is logged in order. */
export function stubs(
  total: number,
  evaluate: Evaluate = async () => undefined,
  opts: { prepare?: () => Promise<void>; next?: (attempt: number, after: string | null) => Promise<void> } = {},
) {
  const targets = targetsOf(total);
  const log: string[] = [];
  const evals: string[] = [];
  const attempts = new Map<string, number[]>();
  let inFlight = 0;
  let maxInFlight = 0;
  const activities: Stubbed = {
    prepareEvalRun: async () => {
      log.push('prepare');
      await opts.prepare?.();
      return { total };
    },
    nextEvalTargets: async (_runId, after, limit) => {
      log.push(`next:${after}`);
      await opts.next?.(attemptNow(), after);
      return targets.filter((t) => after === null || t > after).slice(0, limit);
    },
    evaluateEvalTarget: async (_runId, targetId) => {
      attempts.set(targetId, [...(attempts.get(targetId) ?? []), attemptNow()]);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await evaluate(targetId, attemptNow());
        log.push(`eval:${targetId}`);
        evals.push(targetId);
        return { completed: 1, errors: 0 };
      } finally {
        inFlight--;
      }
    },
    failEvalTarget: async (_runId, targetId, message) => void log.push(`fail:${targetId}:${message}`),
    finishEvalRun: async (_runId, status, error) =>
      void log.push(`finish:${status}`, ...(error ? [`finish:error:${error}`] : [])),
  };
  return { targets, log, evals, attempts, activities, maxInFlight: () => maxInFlight, inFlight: () => inFlight };
}
