import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AnomalyActivities } from '../activities/anomalies';

const { detectAnomalies } = proxyActivities<AnomalyActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * One run of the anomaly detector (the `anomaly-detection` schedule, every 5 minutes). The
 * detection time is the run's start, so a retried activity judges the same window.
 */
export async function anomalyDetectionWorkflow(
  at?: string,
): Promise<{ projects: number; detected: number; resolved: number }> {
  return detectAnomalies(at ?? workflowInfo().runStartTime.toISOString());
}
