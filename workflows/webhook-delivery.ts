import {
  CancellationScope,
  TemporalFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
} from '@temporalio/workflow';
import type { AttemptResult, WebhookActivities } from '../activities/webhooks';
import { BUSY_WAIT_MAX_MS, BUSY_WAIT_MIN_MS, EXPIRY_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../src/webhooks/policy';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../src/webhooks/workflow-types';
import { workflowIso, workflowNow } from './clock';
import { deliveryStatusTracker } from './delivery-status';

/**
 * One webhook delivery (workflow id `webhook-delivery-<delivery id>`): up to 5 attempts, durable
 * waits of at least 1, 2, 4, 8 minutes after each failed attempt, dead-lettered after the 5th
 * failure or when a retry comes due 24 h after the first attempt, stopped (status `cancelled`)
 * when the webhook is disabled or deleted: the API cancels this workflow, and every attempt
 * re-reads the webhook in the statement that claims the attempt.
 *
 * Each attempt is one local activity that claims the attempt number, sends, and records the
 * outcome on the delivery record (no server round trip of its own). Outcomes that involve no attempt
 * (expired, cancelled) are written by the record activity.
 *
 * Deterministic: workflow time only (passed to the activities as data), no I/O.
 */

export type { WebhookDeliveryResult } from '../src/webhooks/workflow-types';

// Each attempt is a local activity: it runs inside the workflow task that decided to make it, so
// the usual success path (start → attempt → done) is one workflow task and a marker in history
// instead of an activity task scheduled, matched, started and completed through the server (about
// half the history events and server CPU per delivery). An attempt is bounded (10 s send + two
// short statements), well within what a local activity should take.
const { attemptWebhookDelivery } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  // Infrastructure retries are driven by the workflow (below), on durable timers in workflow time.
  retry: { maximumAttempts: 1 },
});

// Outcomes that involve no attempt (expired, cancelled): rare, an ordinary activity retried until it succeeds.
const { recordWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Waits between tries of an attempt that could not run (infrastructure fault): 1 s doubling to 5 min. */
const infraBackoffMs = (tries: number) => Math.min(300_000, 1_000 * 2 ** (tries - 1));

/**
 * Wait n while the webhook has its maximum of sends in flight (the attempt answered `busy`, nothing
 * claimed): until the wake-up the worker paced for it (after the first send in flight has ended,
 * so a hanging endpoint's circuit has its answer and the backlog fails fast, one after another),
 * and at least 1 s doubling to 60 s (a slow but answering endpoint's backlog asks less and less
 * often). Only a slow endpoint's deliveries get here; the happy path never waits.
 */
const busyWaitMs = (n: number, retryInMs: number) =>
  Math.round(Math.max(retryInMs + 100, Math.min(BUSY_WAIT_MAX_MS, BUSY_WAIT_MIN_MS * 2 ** (n - 1))));

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { deliveryId, webhookId } = input;
  // Attempt numbers are the delivery's (they continue across redelivery runs); the rules count this run's.
  const base = (input.firstAttempt ?? 1) - 1;
  let attempt = base;
  let firstAttemptAt: number | undefined;
  const record = (fields: Parameters<typeof recordWebhookDelivery>[0]['fields']) =>
    CancellationScope.nonCancellable(() => recordWebhookDelivery({ deliveryId, fields }));
  // DeliveryStatus / AttemptCount search attributes: upserted only when they change.
  const mark = deliveryStatusTracker();
  const done = (r: WebhookDeliveryResult): WebhookDeliveryResult => {
    mark(r.status, r.attempts);
    return r;
  };

  const expire = async (attemptsMade: number): Promise<WebhookDeliveryResult> => {
    await record({ status: 'dead_lettered', next_retry_at: null, dlq_at: workflowIso(), dlq_reason: 'expired' });
    return done({ status: 'dead_lettered', attempts: attemptsMade, dlqReason: 'expired' });
  };

  try {
    for (;;) {
      attempt++;
      let attemptedAt = workflowNow();
      // Expiry counts from this run's first try (a first attempt kept waiting while busy included).
      const expiresAt = (firstAttemptAt ?? attemptedAt) + EXPIRY_MS;
      const retryDelayMs = attempt - base < MAX_ATTEMPTS ? RETRY_DELAYS_MS[attempt - base - 1]! : null;
      // Infrastructure faults (database unreachable, secret not decryptable) keep an attempt from
      // running; they are retried until the delivery expires (24 h after the first attempt) and never
      // count as attempts. They happen before anything is sent, and the attempt-number claim stops a
      // re-run from sending twice (including a local activity re-run after a worker crash).
      let outcome: Exclude<AttemptResult, { kind: 'busy' }> | undefined;
      let wokenFor: number | undefined;
      for (let tries = 1, busy = 0; !outcome; tries++) {
        // An attempt in flight finishes and is recorded even if cancellation arrives meanwhile.
        const result = await CancellationScope.nonCancellable(() =>
          attemptWebhookDelivery({
            deliveryId,
            webhookId,
            wokenFor,
            attempt,
            attemptedAt: workflowIso(attemptedAt),
            firstAttemptAt: workflowIso(firstAttemptAt ?? attemptedAt),
            retryDelayMs,
            redelivery: input.redelivery,
          }),
        ).catch((err: unknown) => {
          // A failed local activity surfaces as its cause (ApplicationFailure, TimeoutFailure, …).
          if (err instanceof TemporalFailure && !isCancellation(err)) return undefined;
          throw err;
        });
        if (result?.kind === 'busy') {
          // Not an attempt: nothing was claimed or sent. Ask again after a durable wait (cancellable),
          // the attempt then starting at its real time. No old history holds a busy result, so this
          // branch changes no replay and needs no patch.
          tries--;
          if (workflowNow() >= expiresAt) return expire(attempt - 1);
          wokenFor = result.wakeAt;
          await sleep(busyWaitMs(++busy, result.retryInMs));
          attemptedAt = workflowNow();
          continue;
        }
        outcome = result;
        if (outcome) break;
        // Could not run until the deadline: nothing was sent, the delivery is dead-lettered as expired.
        const wait = infraBackoffMs(tries);
        if (workflowNow() + wait >= expiresAt) {
          if (workflowNow() < expiresAt) await sleep(expiresAt - workflowNow());
          return expire(attempt - 1);
        }
        await sleep(wait);
      }

      firstAttemptAt ??= attemptedAt;
      if (outcome.kind === 'stopped')
        return done({ status: 'cancelled', attempts: attempt - 1, stopReason: outcome.reason });
      if (outcome.ok) return done({ status: 'delivered', attempts: attempt });
      if (retryDelayMs === null) return done({ status: 'dead_lettered', attempts: attempt, dlqReason: 'max_attempts' });
      mark('failed', attempt);

      // Durable timer, started after the attempt ended: the retry is at or after the recorded next_retry_at.
      await sleep(retryDelayMs);
      // Workers down for a day (the timer fired long ago): too late, nothing is sent.
      if (workflowNow() >= expiresAt) return expire(attempt);
    }
  } catch (err) {
    if (isCancellation(err)) {
      // Disabled or deleted webhook (the API cancels): record that retries stopped, then end as cancelled.
      await record({ status: 'cancelled', next_retry_at: null, stop_reason: 'cancel_requested' });
      mark('cancelled');
    }
    throw err;
  }
}
