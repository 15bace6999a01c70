import type { ActivityDeps } from './deps';
import { deliveryClientFor, type AttemptOutcome } from '../src/webhooks/safe-http';
import { decryptWebhookSecret, keyringFor } from '../src/webhooks/secrets';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signBody } from '../src/webhooks/signing';

export type AttemptResult =
  | ({ kind: 'attempted' } & Omit<AttemptOutcome, 'redirects'>)
  | { kind: 'stopped'; reason: 'webhook_disabled' | 'webhook_deleted' | 'delivery_missing' };

/** Columns the workflow may set on its delivery record (timestamps as ISO strings in workflow time). */
export interface DeliveryRecordFields {
  status: 'pending' | 'delivered' | 'failed' | 'dead_lettered' | 'cancelled';
  attempt_count?: number;
  http_status?: number | null;
  error_message?: string | null;
  duration_ms?: number | null;
  first_attempt_at?: string;
  last_attempt_at?: string;
  next_retry_at?: string | null;
  delivered_at?: string;
  dlq_at?: string;
  dlq_reason?: string;
  /** `cancel_requested` is refined from the webhook row into webhook_disabled / webhook_deleted. */
  stop_reason?: string;
}

export interface AttemptInput {
  deliveryId: string;
  attempt: number;
  /** Workflow time of this attempt and of the first one (ISO). */
  attemptedAt: string;
  firstAttemptAt: string;
  /** Wait before the next attempt if this one fails; null when this is the last attempt. */
  retryDelayMs: number | null;
}

export function webhookActivities({ db, config, logger }: ActivityDeps) {
  /** The record after an attempt: delivered, failed with next_retry_at, or dead-lettered after the last attempt. */
  function outcomeFields(input: AttemptInput, o: { ok: boolean; httpStatus: number | null; durationMs: number; errorMessage: string | null }): DeliveryRecordFields {
    const endedAt = new Date(Date.parse(input.attemptedAt) + o.durationMs);
    const common = {
      attempt_count: input.attempt,
      http_status: o.httpStatus,
      error_message: o.errorMessage,
      duration_ms: o.durationMs,
      first_attempt_at: input.firstAttemptAt,
      last_attempt_at: input.attemptedAt,
    };
    if (o.ok) return { ...common, status: 'delivered', delivered_at: endedAt.toISOString(), next_retry_at: null };
    if (input.retryDelayMs === null)
      return { ...common, status: 'dead_lettered', next_retry_at: null, dlq_at: endedAt.toISOString(), dlq_reason: 'max_attempts' };
    return { ...common, status: 'failed', next_retry_at: new Date(endedAt.getTime() + input.retryDelayMs).toISOString() };
  }

  async function record(deliveryId: string, fields: DeliveryRecordFields): Promise<void> {
    const { stop_reason, ...rest } = fields;
    const update: Record<string, unknown> = { ...rest };
    if (stop_reason === 'cancel_requested') {
      update.stop_reason = db.raw(
        `(select case when w.deleted_at is not null then 'webhook_deleted' when not w.is_active then 'webhook_disabled' else 'cancel_requested' end
            from webhooks w where w.id = webhook_deliveries.webhook_id)`,
      );
    } else if (stop_reason) update.stop_reason = stop_reason;
    await db('webhook_deliveries').where({ id: deliveryId }).update(update);
  }

  return {
    /**
     * One attempt: claim, send one signed HTTPS POST, record the outcome on the delivery record.
     *
     * The statement that claims attempt number n (attempt_count < n → n) also re-reads the webhook:
     * disabled or deleted → nothing is sent and the record says `cancelled`. A retry of this activity
     * after a worker crash finds the number claimed and records the attempt as interrupted instead
     * of sending again, so Temporal's retries never multiply attempts. Delivery failures are
     * outcomes (returned), never exceptions; only infrastructure faults throw.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult> {
      const { rows } = await db.raw<{ rows: { body: string; webhook_id: string; url: string; secret_ciphertext: string; master_key_id: string }[] }>(
        `update webhook_deliveries d set attempt_count = ?
           from webhooks w
          where d.id = ? and w.id = d.webhook_id and d.attempt_count < ? and w.deleted_at is null and w.is_active
          returning d.body, w.id as webhook_id, w.url, w.secret_ciphertext, w.master_key_id`,
        [input.attempt, input.deliveryId, input.attempt],
      );
      const row = rows[0];
      if (!row) {
        const state = await db('webhook_deliveries as d')
          .join('webhooks as w', 'w.id', 'd.webhook_id')
          .where('d.id', input.deliveryId)
          .first('d.attempt_count', 'w.is_active', 'w.deleted_at');
        if (!state) return { kind: 'stopped', reason: 'delivery_missing' };
        if (state.deleted_at || !state.is_active) {
          const reason = state.deleted_at ? 'webhook_deleted' : 'webhook_disabled';
          await record(input.deliveryId, { status: 'cancelled', next_retry_at: null, stop_reason: reason });
          return { kind: 'stopped', reason };
        }
        const interrupted = {
          ok: false,
          httpStatus: null,
          durationMs: 0,
          errorMessage: 'attempt interrupted: the worker stopped before its outcome was recorded',
        };
        await record(input.deliveryId, outcomeFields(input, interrupted));
        return { kind: 'attempted', ...interrupted };
      }
      const secret = decryptWebhookSecret(keyringFor(config), row.webhook_id, row.secret_ciphertext, row.master_key_id);
      const sent = await deliveryClientFor(config).post(row.url, row.body, {
        [SIGNATURE_HEADER]: signBody(row.body, secret),
        [DELIVERY_ID_HEADER]: input.deliveryId,
      });
      const outcome = { ok: sent.ok, httpStatus: sent.httpStatus, durationMs: sent.durationMs, errorMessage: sent.errorMessage };
      await record(input.deliveryId, outcomeFields(input, outcome));
      if (!outcome.ok) logger.debug({ deliveryId: input.deliveryId, attempt: input.attempt, error: outcome.errorMessage }, 'webhook attempt failed');
      return { kind: 'attempted', ...outcome };
    },

    /** Writes outcomes that involve no attempt (expired, cancelled, attempt could not run). Idempotent. */
    async recordWebhookDelivery(input: { deliveryId: string; fields: DeliveryRecordFields }): Promise<void> {
      await record(input.deliveryId, input.fields);
    },
  };
}
