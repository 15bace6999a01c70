import type { ActivityDeps } from './deps';
import { recordAttempt, type AttemptRecord } from '../src/webhooks/attempts';
import { CIRCUIT_OPEN_ERROR } from '../src/webhooks/endpoint-guard';
import { NO_EVIDENCE, type AttemptEvidence } from '../src/webhooks/evidence';
import { autoDisableRule, noteDeadLetter } from '../src/webhooks/health';
import {
  claimAttempt,
  deliveryState,
  updateDeliveryRecord,
  type DeliveryRecordFields,
  type DeliveryState,
  type HookToSend,
} from '../src/webhooks/queries';
import type { AttemptOutcome } from '../src/webhooks/safe-http';
import { sendSigned } from '../src/webhooks/send';

export type { DeliveryRecordFields } from '../src/webhooks/queries';

type Outcome = Pick<AttemptOutcome, 'ok' | 'httpStatus' | 'durationMs' | 'errorMessage'>;

export type AttemptResult =
  | ({ kind: 'attempted' } & Outcome)
  | { kind: 'stopped'; reason: 'webhook_disabled' | 'webhook_deleted' | 'delivery_missing' }
  /** The webhook has its maximum of sends in flight on this worker: nothing claimed or sent, ask again later. */
  | { kind: 'busy'; retryInMs: number; wakeAt: number };

export interface AttemptInput {
  deliveryId: string;
  /** The endpoint's key for the in-flight cap and circuit (src/webhooks/endpoint-guard.ts). */
  webhookId: string;
  /** The `wakeAt` of this attempt's last `busy` answer: the turn the worker gave it. */
  wokenFor?: number;
  attempt: number;
  /** Workflow time of this attempt and of the first one of this run (ISO). */
  attemptedAt: string;
  firstAttemptAt: string;
  /** Wait before the next attempt if this one fails; null when this is the last attempt. */
  retryDelayMs: number | null;
  /**
   * Set on run n ≥ 1 an operator started (redeliver): runs on a paused webhook, keeps the delivery's first_attempt_at.
   */
  redelivery?: number;
}

/** An attempt failed at once by the webhook's open circuit: counted, nothing sent. */
const CIRCUIT_OPEN: Outcome = { ok: false, httpStatus: null, durationMs: 0, errorMessage: CIRCUIT_OPEN_ERROR };

const INTERRUPTED: Outcome = {
  ok: false,
  httpStatus: null,
  durationMs: 0,
  errorMessage: 'attempt interrupted: the worker stopped before its outcome was recorded',
};

/** The record after an attempt: delivered, failed with next_retry_at, or dead-lettered after the last attempt. */
function outcomeFields(input: AttemptInput, o: Outcome): DeliveryRecordFields {
  const endedAt = new Date(Date.parse(input.attemptedAt) + o.durationMs);
  const common = {
    attempt_count: input.attempt,
    outcome_attempt: input.attempt,
    http_status: o.httpStatus,
    error_message: o.errorMessage,
    duration_ms: o.durationMs,
    // A redelivery run's first attempt is not the delivery's: that one stays as it was.
    ...(input.redelivery ? {} : { first_attempt_at: input.firstAttemptAt }),
    last_attempt_at: input.attemptedAt,
  };
  if (o.ok) return { ...common, status: 'delivered', delivered_at: endedAt.toISOString(), next_retry_at: null };
  if (input.retryDelayMs === null)
    return {
      ...common,
      status: 'dead_lettered',
      next_retry_at: null,
      dlq_at: endedAt.toISOString(),
      dlq_reason: 'max_attempts',
    };
  return { ...common, status: 'failed', next_retry_at: new Date(endedAt.getTime() + input.retryDelayMs).toISOString() };
}

/** The history's row for a workflow attempt. */
const attemptRecord = (input: AttemptInput, o: Outcome, evidence: AttemptEvidence): AttemptRecord => ({
  number: input.attempt,
  source: input.redelivery ? 'redelivery' : 'delivery',
  redelivery: input.redelivery ?? null,
  started_at: input.attemptedAt,
  duration_ms: o.durationMs,
  http_status: o.httpStatus,
  error_message: o.errorMessage,
  evidence,
});

/** The outcome a record already holds for an attempt (a delivered record answers ok). */
const recordedOutcome = (s: DeliveryState): Outcome => ({
  ok: s.status === 'delivered',
  httpStatus: s.http_status,
  durationMs: s.duration_ms ?? 0,
  errorMessage: s.error_message,
});

export function webhookActivities(deps: ActivityDeps) {
  const { db, logger, metrics, endpoints } = deps;
  const rule = autoDisableRule(deps.config);

  /** Records attempt n; a dead-lettering one counts toward auto-disable (failure path only). */
  async function record(input: AttemptInput, o: Outcome, evidence: AttemptEvidence, hook?: HookToSend): Promise<void> {
    const fields = outcomeFields(input, o);
    const streakOf = hook?.consecutive_failures ? hook.id : undefined;
    await recordAttempt(db, input.deliveryId, fields, attemptRecord(input, o, evidence), undefined, streakOf);
    if (fields.status !== 'dead_lettered') return;
    // The outcome stands either way: a fault here loses one count, it does not fail the attempt.
    const disabled = await noteDeadLetter(db, hook?.id ?? input.webhookId, rule).catch((err: unknown) => {
      logger.warn({ err }, 'auto-disable check failed');
    });
    // Its other deliveries stop at their next attempt, which re-reads the webhook (recorded cancelled).
    if (disabled) logger.warn({ webhookId: input.webhookId }, 'webhook auto-disabled after failing deliveries');
  }

  /**
   * Attempt number n could not be claimed: it ran before. Its recorded outcome stands (the worker
   * stopped after recording it and before the workflow saw it: a delivered record stays delivered
   * and nothing is sent again; or a recovery made attempt n meanwhile); a webhook disabled or
   * deleted since stops the delivery; only an attempt with no recorded outcome is recorded as
   * interrupted.
   */
  async function rerun(input: AttemptInput): Promise<AttemptResult> {
    const state = await deliveryState(db, input.deliveryId);
    if (!state) return { kind: 'stopped', reason: 'delivery_missing' };
    if (state.outcome_attempt >= input.attempt) return { kind: 'attempted', ...recordedOutcome(state) };
    if (state.webhook_deleted || (!state.webhook_active && !input.redelivery)) {
      const reason = state.webhook_deleted ? 'webhook_deleted' : 'webhook_disabled';
      await updateDeliveryRecord(db, input.deliveryId, {
        status: 'cancelled',
        next_retry_at: null,
        stop_reason: reason,
      });
      return { kind: 'stopped', reason };
    }
    await record(input, INTERRUPTED, NO_EVIDENCE);
    metrics.webhookAttempts.inc({ outcome: 'interrupted', kind: 'delivery' });
    return { kind: 'attempted', ...INTERRUPTED };
  }

  return {
    /**
     * One attempt: claim the attempt number, send one signed HTTPS POST, record the outcome on the
     * delivery record and the attempt in its history (one statement). The claim re-reads the
     * webhook (disabled or deleted: nothing is sent, the record says `cancelled`), and a re-run of
     * a claimed attempt never sends again, so Temporal's retries never multiply attempts. Delivery
     * failures are outcomes (returned), never exceptions; only infrastructure faults throw.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult> {
      // Isolation: a webhook at its in-flight cap is not attempted (the workflow waits, uncounted);
      // one whose circuit is open gets a counted failed attempt without a send.
      const admission = endpoints.admit(input.webhookId, input.wokenFor);
      if (admission.kind === 'busy') return admission;
      const release = admission.kind === 'send' ? admission.release : undefined;
      try {
        const claimed = await claimAttempt(db, input.deliveryId, input.attempt, { allowPaused: !!input.redelivery });
        if (!claimed) return await rerun(input);
        if (!release) {
          metrics.webhookAttempts.inc({ outcome: 'failed', kind: 'delivery' });
          await record(input, CIRCUIT_OPEN, NO_EVIDENCE, claimed.hook);
          return { kind: 'attempted', ...CIRCUIT_OPEN };
        }
        const sent = await sendSigned(deps, 'delivery', claimed.hook, claimed.body, input.deliveryId);
        release(sent);
        // Only these four go back to the workflow (and into its history): the evidence stays in PostgreSQL.
        const outcome: Outcome = {
          ok: sent.ok,
          httpStatus: sent.httpStatus,
          durationMs: sent.durationMs,
          errorMessage: sent.errorMessage,
        };
        await record(input, outcome, sent.evidence, claimed.hook);
        if (!outcome.ok)
          logger.debug(
            { deliveryId: input.deliveryId, attempt: input.attempt, error: outcome.errorMessage },
            'webhook attempt failed',
          );
        return { kind: 'attempted', ...outcome };
      } finally {
        release?.(); // nothing sent (re-run, fault): frees the place, leaves the circuit as it was
      }
    },

    /** Writes outcomes that involve no attempt (expired, cancelled, attempt could not run). Idempotent. */
    async recordWebhookDelivery(input: { deliveryId: string; fields: DeliveryRecordFields }): Promise<void> {
      await updateDeliveryRecord(db, input.deliveryId, input.fields);
    },
  };
}

/** The delivery workflow's activities (workflows/webhook-delivery.ts imports only this type). */
export type WebhookActivities = ReturnType<typeof webhookActivities>;
