import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RecommendationActivities } from '../activities/recommendations';

const { recomputeRecommendations } = proxyActivities<RecommendationActivities>({
  startToCloseTimeout: '20 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * Recomputes every project's recommendations (the hourly `recommendations` schedule); `at` defaults to the run's start.
 */
export async function recommendationsWorkflow(at?: string): Promise<{ projects: number; recommendations: number }> {
  return recomputeRecommendations(at ?? workflowInfo().runStartTime.toISOString());
}
