import { proxyActivities } from '@temporalio/workflow';
import type { SecurityActivities } from '../activities/security';

const { scanSecurityBatch } = proxyActivities<SecurityActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});

/** Batches per run at most: a backlog is worked off over the next runs, each history stays short. */
const MAX_BATCHES = 40;

/** Drains the security scan queue (the `security-scan` schedule, every minute), one batch per activity. */
export async function securityScanWorkflow(): Promise<{
  batches: number;
  scanned: number;
  detections: number;
  created: number;
}> {
  const total = { batches: 0, scanned: 0, detections: 0, created: 0 };
  for (let more = true; more && total.batches < MAX_BATCHES;) {
    const r = await scanSecurityBatch();
    total.batches++;
    total.scanned += r.scanned;
    total.detections += r.detections;
    total.created += r.created;
    more = r.more;
  }
  return total;
}
