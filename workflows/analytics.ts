import { proxyActivities } from '@temporalio/workflow';
import type { AnalyticsActivities } from '../activities/analytics';

const { foldRollupDeltas } = proxyActivities<AnalyticsActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});
// A registration backfills the key over the project's whole log: minutes on a large project.
const { refreshPropertyKeys } = proxyActivities<AnalyticsActivities>({
  startToCloseTimeout: '25 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * Folds rollup deltas no api process folded (one stopped between commit and fold): run every
 * minute by the `analytics-fold` schedule. The api folds its own within a fraction of a second.
 */
export async function analyticsFoldWorkflow(): Promise<{ folded: number }> {
  return { folded: await foldRollupDeltas() };
}

/** Keeps the rolled-up custom property keys (docs/analytics.md): run hourly by `analytics-property-keys`. */
export async function analyticsPropertyKeysWorkflow(): Promise<{ registered: number; dropped: number }> {
  return refreshPropertyKeys();
}
