import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { SystemActivities } from '../activities/system';

const { checkDatabase } = proxyActivities<SystemActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface SystemCheckInput {
  /** Optional durable timer before the check, to prove timers fire (and are skipped in tests). */
  sleepMs?: number;
}

/** Round trip api → Temporal → worker → activity → PostgreSQL; a smoke check for operators and tests. */
export async function systemCheckWorkflow(
  input: SystemCheckInput = {},
): Promise<{ workflowId: string; database: string; now: string }> {
  if (input.sleepMs) await sleep(input.sleepMs);
  const db = await checkDatabase();
  return { workflowId: workflowInfo().workflowId, ...db };
}
