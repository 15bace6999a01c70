import {
  ActivityCancellationType,
  CancellationScope,
  CancelledFailure,
  continueAsNew,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { WebhookRecoveryActivities } from '../activities/webhook-recoveries';
import { RECOVERY_ITEMS_PER_RUN, RECOVERY_PAGE_SIZE } from '../src/webhooks/policy';
import type { WebhookRecoveryInput, WebhookRecoveryResult } from '../src/webhooks/workflow-types';

/**
 * A webhook recovery (`webhook-recovery-<id>`, POST /webhooks/:id/recover): the window's failed and
 * dead-lettered deliveries, page by page (keyset cursor, one activity per page that sends its
 * deliveries with bounded concurrency), each sent once more. The cursor is the workflow's state;
 * the claim rows in PostgreSQL make each delivery go out at most once per recovery, whatever
 * worker crashes, page retries or continue-as-new happen. After `itemsPerRun` deliveries the
 * workflow continues as new, so a window of millions keeps a short history. Cancelling lets the
 * page in flight finish its sends, then records `cancelled`.
 *
 * Deterministic: no I/O, no clock; only its own activities' types are imported.
 */
export type { WebhookRecoveryInput, WebhookRecoveryResult } from '../src/webhooks/workflow-types';

const { recoverWebhookPage } = proxyActivities<WebhookRecoveryActivities>({
  startToCloseTimeout: '1 hour',
  // The page heartbeats every item and every 2 s: a killed worker is noticed in seconds.
  heartbeatTimeout: '10 seconds',
  // A cancel waits for the page to stop: its sends in flight finish and are recorded before `cancelled` is.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});
const { finishWebhookRecovery } = proxyActivities<WebhookRecoveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function webhookRecoveryWorkflow(input: WebhookRecoveryInput): Promise<WebhookRecoveryResult> {
  const { recoveryId } = input;
  const pageSize = input.pageSize ?? RECOVERY_PAGE_SIZE;
  const itemsPerRun = input.itemsPerRun ?? RECOVERY_ITEMS_PER_RUN;
  const finish = (status: 'completed' | 'cancelled' | 'failed', error?: string) =>
    CancellationScope.nonCancellable(() => finishWebhookRecovery(recoveryId, status, error));
  let cursor = input.cursor ?? null;
  let items = 0;
  let more = true;
  try {
    while (more && items < itemsPerRun) {
      const page = await recoverWebhookPage({ recoveryId, cursor, limit: pageSize });
      if (page.stopped === 'not_running') {
        // Cancelled by the API: its workflow cancel may have come too; then end as Canceled, as asked.
        if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('recovery cancelled');
        return { status: 'cancelled', reason: 'cancelled' };
      }
      if (page.stopped === 'webhook_deleted') {
        await finish('cancelled', 'the webhook was deleted');
        return { status: 'cancelled', reason: 'webhook_deleted' };
      }
      items += page.count;
      cursor = page.cursor;
      more = !page.done;
    }
    if (!more) await finish('completed');
  } catch (err) {
    if (isCancellation(err)) {
      await finish('cancelled');
      throw err;
    }
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    await finish('failed', cause);
    throw err;
  }
  // Outside the try: continue-as-new is thrown, and must not be mistaken for a failure.
  if (more) return continueAsNew<typeof webhookRecoveryWorkflow>({ ...input, cursor });
  return { status: 'completed' };
}
