import { foldAll } from '../src/analytics/fold';
import { refreshPropertyRollups } from '../src/analytics/property-rollups';
import type { ActivityDeps } from './deps';

/** Side effects of the analytics workflows. */
export function analyticsActivities({ db }: ActivityDeps) {
  return {
    /** Folds every pending batch of rollup deltas; returns how many batches. */
    foldRollupDeltas: () => foldAll(db),
    /** Registers (with their backfill) and drops rolled-up custom property keys; returns how many of each. */
    refreshPropertyKeys: async () => {
      const c = await refreshPropertyRollups(db);
      const n = (l: { names: string[] }[]) => l.reduce((s, x) => s + x.names.length, 0);
      return { registered: n(c.registered), dropped: n(c.dropped) };
    },
  };
}

/** The activities of the analytics workflows (workflows/analytics.ts): the one type they import. */
export type AnalyticsActivities = ReturnType<typeof analyticsActivities>;
