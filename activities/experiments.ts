import { Context } from '@temporalio/activity';
import { withLazyAjv } from '../src/evaluators/json-schema';
import { failItem, finishExperiment, pendingItems } from '../src/experiments/queries';
import { runItem } from '../src/experiments/run';
import { createProxyPricer } from '../src/providers/cost';
import type { ActivityDeps } from './deps';

/**
 * Side effects of experiments: the pending item runs, one item run (model call and scores), the experiment's status.
 */
export function experimentActivities({ db, keyring, config }: ActivityDeps) {
  const deps = withLazyAjv({ db, keyring, config, pricer: createProxyPricer() });
  return {
    nextExperimentItems: (id: string, after: string | null, limit: number) => pendingItems(db, id, after, limit),
    // Heartbeats bring a cancel back: the signal stops the item before its next model or judge call.
    runExperimentItem: async (id: string, itemId: string, repetition: number) => {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 2_000);
      try {
        return await runItem({ ...deps, signal: ctx.cancellationSignal }, id, itemId, repetition);
      } finally {
        clearInterval(beat);
      }
    },
    failExperimentItem: (id: string, itemId: string, repetition: number, message: string) =>
      failItem(db, id, itemId, repetition, message),
    finishExperiment: (id: string, status: 'completed' | 'cancelled' | 'failed', error?: string) =>
      finishExperiment(db, id, status, error),
  };
}

/** The activities of the experiment workflow (workflows/experiment.ts): the one type that workflow imports. */
export type ExperimentActivities = ReturnType<typeof experimentActivities>;
