import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/retention';

const { runRetention } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '2 hours',
  retry: { maximumAttempts: 3 },
});

/** The request log's daily upkeep (the `retention` schedule); `at` (ISO) defaults to the run's start. */
export async function retentionWorkflow(at?: string) {
  return runRetention(at ?? workflowInfo().runStartTime.toISOString());
}
