import { foldAll } from '../src/analytics/fold';
import type { ActivityDeps } from './deps';

/** Side effects of the analytics workflows. */
export function analyticsActivities({ db }: ActivityDeps) {
  return {
    /** Folds every pending batch of rollup deltas; returns how many batches. */
    foldRollupDeltas: () => foldAll(db),
  };
}
