import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { checkDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** Round trip api → Temporal → worker → activity → PostgreSQL; used by tests and `npm run dev` smoke checks. */
export async function systemCheckWorkflow(): Promise<{ workflowId: string; database: string; now: string }> {
  const db = await checkDatabase();
  return { workflowId: workflowInfo().workflowId, ...db };
}
