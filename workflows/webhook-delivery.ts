import { ActivityFailure, CancellationScope, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { EXPIRY_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../src/webhooks/policy';

/**
 * One webhook delivery (workflow id `webhook-delivery-<delivery id>`): up to 5 attempts, durable
 * waits of at least 1, 2, 4, 8 minutes after each failed attempt, dead-lettered after the 5th
 * failure or when a retry comes due 24 h after the first attempt, stopped (status `cancelled`)
 * when the webhook is disabled or deleted: the API cancels this workflow, and every attempt
 * re-reads the webhook in the statement that claims the attempt.
 *
 * Each attempt is one activity that claims the attempt number, sends, and records the outcome on
 * the delivery record (one server round trip per attempt). Outcomes that involve no attempt
 * (expired, cancelled) are written by the record activity.
 *
 * Deterministic: workflow time only (passed to the activities as data), no I/O.
 */

export interface WebhookDeliveryInput {
  deliveryId: string;
  webhookId: string;
  orgId: string;
  eventType: string;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'dead_lettered' | 'cancelled';
  attempts: number;
  dlqReason?: 'max_attempts' | 'expired';
  stopReason?: string;
}

// Infrastructure faults (database unreachable, secret not decryptable) are retried until the
// delivery expires (24 h after the first attempt) and never count as attempts; they happen before
// anything is sent, and the attempt-number claim stops a retried execution from sending twice.
const attemptWithin = (scheduleToCloseMs: number) =>
  proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: Math.max(1_000, scheduleToCloseMs),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  }).attemptWebhookDelivery;

const { recordWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const iso = (ms: number) => new Date(ms).toISOString();

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { deliveryId } = input;
  let attempt = 0;
  let firstAttemptAt: number | undefined;
  const record = (fields: Parameters<typeof recordWebhookDelivery>[0]['fields']) =>
    CancellationScope.nonCancellable(() => recordWebhookDelivery({ deliveryId, fields }));

  const expire = async (attemptsMade: number): Promise<WebhookDeliveryResult> => {
    await record({ status: 'dead_lettered', next_retry_at: null, dlq_at: iso(Date.now()), dlq_reason: 'expired' });
    return { status: 'dead_lettered', attempts: attemptsMade, dlqReason: 'expired' };
  };

  try {
    for (;;) {
      attempt++;
      const attemptedAt = Date.now();
      firstAttemptAt ??= attemptedAt;
      const retryDelayMs = attempt < MAX_ATTEMPTS ? RETRY_DELAYS_MS[attempt - 1]! : null;
      const expiresAt = firstAttemptAt + EXPIRY_MS;
      // An attempt in flight finishes and is recorded even if cancellation arrives meanwhile.
      const outcome = await CancellationScope.nonCancellable(() =>
        attemptWithin(expiresAt - attemptedAt)({ deliveryId, attempt, attemptedAt: iso(attemptedAt), firstAttemptAt: iso(firstAttemptAt!), retryDelayMs }),
      ).catch((err: unknown) => {
        if (err instanceof ActivityFailure) return err;
        throw err;
      });

      // Retries of an attempt that cannot run (infrastructure down) end only at the expiry
      // deadline: nothing was sent, the delivery is dead-lettered as expired.
      // (Temporal gives up on retries whose next backoff would pass the deadline: wait out the rest.)
      if (outcome instanceof ActivityFailure) {
        if (Date.now() < expiresAt) await sleep(expiresAt - Date.now());
        return expire(attempt - 1);
      }
      if (outcome.kind === 'stopped') return { status: 'cancelled', attempts: attempt - 1, stopReason: outcome.reason };
      if (outcome.ok) return { status: 'delivered', attempts: attempt };
      if (retryDelayMs === null) return { status: 'dead_lettered', attempts: attempt, dlqReason: 'max_attempts' };

      // Durable timer, started after the attempt ended: the retry is at or after the recorded next_retry_at.
      await sleep(retryDelayMs);
      // Workers down for a day (the timer fired long ago): too late, nothing is sent.
      if (Date.now() >= expiresAt) return expire(attempt);
    }
  } catch (err) {
    if (isCancellation(err)) {
      // Disabled or deleted webhook (the API cancels): record that retries stopped, then end as cancelled.
      await record({ status: 'cancelled', next_retry_at: null, stop_reason: 'cancel_requested' });
    }
    throw err;
  }
}
