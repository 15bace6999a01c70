import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { recordAudit } from '../audit/audit';
import { isoOrNull } from '../db/convert';
import { insertAttempt } from './attempts';
import { resetFailing } from './health';
import { buildBody } from './payload';
import * as q from './queries';
import type { DeliveryView, TestDeliveryResult } from './schemas';
import { sendSigned } from './send';
import { requireWebhook, type WebhookDeps } from './service';

/** A webhook's deliveries: the recent list, and the test send (webhook CRUD is in service.ts). */

/** A delivery record exactly as the spec's table lists it. */
export function toDeliveryView(r: q.DeliveryRecord): DeliveryView {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    event_type: r.event_type,
    status: r.status,
    http_status: r.http_status,
    error_message: r.error_message,
    duration_ms: r.duration_ms,
    attempt_count: r.attempt_count,
    next_retry_at: isoOrNull(r.next_retry_at),
    dlq_at: isoOrNull(r.dlq_at),
    dlq_reason: r.dlq_reason,
    delivered_at: isoOrNull(r.delivered_at),
  };
}

export async function listDeliveries(deps: WebhookDeps, orgId: string, webhookId: string): Promise<DeliveryView[]> {
  await requireWebhook(deps.db, orgId, webhookId);
  return (await q.recentDeliveries(deps.db, webhookId)).map(toDeliveryView);
}

/**
 * POST /:id/test: one signed `{event:"test", webhook_id, timestamp}` POST right now, through the
 * same send as real deliveries, recorded as a delivery with event_type `test` (never retried).
 * Works on paused webhooks too: it is an explicit operator action.
 */
export async function sendTestDelivery(deps: WebhookDeps, actor: Principal, id: string): Promise<TestDeliveryResult> {
  const hook = await requireWebhook(deps.db, actor.orgId, id);
  const deliveryId = randomUUID();
  const now = new Date();
  const body = buildBody('test', hook.id, now);
  const out = await sendSigned(deps, 'test', hook, body, deliveryId);
  const status = out.ok ? 'delivered' : 'failed';
  await deps.db.transaction(async (trx) => {
    await q.insertDelivery(trx, {
      id: deliveryId,
      webhook_id: hook.id,
      org_id: hook.org_id,
      event_type: 'test',
      status,
      body,
      http_status: out.httpStatus,
      error_message: out.errorMessage,
      duration_ms: out.durationMs,
      attempt_count: 1,
      outcome_attempt: 1,
      first_attempt_at: now,
      last_attempt_at: now,
      delivered_at: out.ok ? new Date(now.getTime() + out.durationMs) : null,
      created_at: now,
    });
    if (out.ok) await resetFailing(trx, hook.id);
    await insertAttempt(trx, deliveryId, {
      number: 1,
      source: 'test',
      started_at: now,
      duration_ms: out.durationMs,
      http_status: out.httpStatus,
      error_message: out.errorMessage,
      evidence: out.evidence,
    });
    const after = { delivery_id: deliveryId, status, http_status: out.httpStatus };
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'webhook.tested',
      resourceType: 'webhook',
      resourceId: hook.id,
      after,
    });
  });
  return {
    delivery_id: deliveryId,
    status,
    http_status: out.httpStatus,
    duration_ms: out.durationMs,
    error_message: out.errorMessage,
  };
}
