import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { foldRollupDeltas } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * Folds rollup deltas no api process folded (one stopped between commit and fold): run every
 * minute by the `analytics-fold` schedule. The api folds its own within a fraction of a second.
 */
export async function analyticsFoldWorkflow(): Promise<{ folded: number }> {
  return { folded: await foldRollupDeltas() };
}
