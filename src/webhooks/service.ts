import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import { recordAudit } from '../audit/audit';
import type { Db } from '../db/knex';
import { HttpError, notFound } from '../http/errors';
import type { Keyring } from '../keys/crypto';
import type { Logger } from '../logger';
import { AddressPolicy } from './address-policy';
import { buildBody } from './payload';
import { DELIVERIES_LISTED, MAX_WEBHOOKS_PER_ORG } from './policy';
import type { SafeHttpClient } from './safe-http';
import type { CreateWebhookInput, UpdateWebhookInput } from './schemas';
import { decryptWebhookSecret, encryptWebhookSecret, generateWebhookSecret, maskedSecret, secretHint } from './secrets';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signBody } from './signing';
import { cancelDeliveryWorkflow } from './workflow-client';

/** What the API returns for a webhook. `secret` is masked except in the create response. */
export interface WebhookView {
  id: string;
  name: string;
  url: string;
  secret: string;
  events: string[];
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

/** A delivery record exactly as the spec's table lists it. */
export interface DeliveryView {
  id: string;
  webhook_id: string;
  event_type: string;
  status: string;
  http_status: number | null;
  error_message: string | null;
  duration_ms: number | null;
  attempt_count: number;
  next_retry_at: string | null;
  dlq_at: string | null;
  dlq_reason: string | null;
  delivered_at: string | null;
}

export interface WebhookDeps {
  db: Db;
  keyring: Keyring;
  temporal: Client;
  http: SafeHttpClient;
  logger: Logger;
}

interface WebhookRow {
  id: string;
  org_id: string;
  name: string;
  url: string;
  events: string[];
  is_active: boolean;
  secret_ciphertext: string;
  master_key_id: string;
  secret_hint: string;
  created_at: Date;
  updated_at: Date;
}

const isoOrNull = (d: Date | null | undefined) => (d ? d.toISOString() : null);

function toView(row: WebhookRow, secret?: string): WebhookView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    secret: secret ?? maskedSecret(row.secret_hint),
    events: row.events,
    is_active: row.is_active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toDeliveryView(r: Record<string, any>): DeliveryView {
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

const live = (db: Db | Knex.Transaction, orgId: string) => db<WebhookRow>('webhooks').where({ org_id: orgId }).whereNull('deleted_at');

async function findWebhook(db: Db | Knex.Transaction, orgId: string, id: string, forUpdate = false): Promise<WebhookRow> {
  const q = live(db, orgId).andWhere({ id }).first();
  const row = await (forUpdate ? q.forUpdate() : q);
  if (!row) throw notFound('Webhook');
  return row as WebhookRow;
}

/** Literal private addresses are refused at registration (the send-time guard re-checks every hop). */
function checkUrlTarget(http: SafeHttpClient, url: string): void {
  const u = new URL(url);
  if (AddressPolicy.isIpLiteral(u.hostname)) {
    const verdict = http.policy.check(u.hostname);
    if (!verdict.allowed)
      throw new HttpError(400, 'webhook_url_forbidden', `Invalid body.url: ${verdict.address} is a ${verdict.reason} address; webhooks must reach a public HTTPS endpoint`);
  }
}

export async function listWebhooks(deps: WebhookDeps, orgId: string): Promise<WebhookView[]> {
  const rows = await live(deps.db, orgId).orderBy('created_at').orderBy('id');
  return rows.map((r) => toView(r as WebhookRow));
}

export async function getWebhook(deps: WebhookDeps, orgId: string, id: string): Promise<WebhookView> {
  return toView(await findWebhook(deps.db, orgId, id));
}

/**
 * Registers a webhook. The organization row is locked for the count, so concurrent creates
 * cannot pass the 20-per-organization limit together.
 */
export async function createWebhook(deps: WebhookDeps, actor: Principal, input: CreateWebhookInput): Promise<WebhookView> {
  checkUrlTarget(deps.http, input.url);
  const orgId = actor.orgId;
  return deps.db.transaction(async (trx) => {
    await trx('organizations').where({ id: orgId }).forUpdate().first('id');
    const [{ count }] = await live(trx, orgId).count<{ count: number }[]>({ count: '*' });
    if (Number(count) >= MAX_WEBHOOKS_PER_ORG) {
      throw new HttpError(
        409,
        'webhook_limit_reached',
        `An organization can have at most ${MAX_WEBHOOKS_PER_ORG} webhooks; delete one before adding another`,
        { limit: MAX_WEBHOOKS_PER_ORG, count: Number(count) },
      );
    }
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const enc = encryptWebhookSecret(deps.keyring, id, secret);
    const [row] = await trx('webhooks')
      .insert({
        id,
        org_id: orgId,
        name: input.name,
        url: input.url,
        events: input.events,
        is_active: input.is_active,
        secret_ciphertext: enc.ciphertext,
        master_key_id: enc.keyId,
        secret_hint: secretHint(secret),
        created_by: actor.kind === 'user' ? actor.userId : null,
      })
      .returning('*');
    const view = toView(row as WebhookRow);
    await recordAudit(trx, { orgId, actor, action: 'webhook.create', resourceType: 'webhook', resourceId: id, after: view });
    return toView(row as WebhookRow, secret);
  });
}

/** Open deliveries: those whose workflow may still attempt (first attempt pending or a retry pending). */
async function openDeliveryIds(db: Db, webhookId: string): Promise<string[]> {
  const rows = await db('webhook_deliveries').select('id').where({ webhook_id: webhookId }).whereIn('status', ['pending', 'failed']).whereNotNull('workflow_id');
  return rows.map((r) => r.id as string);
}

/**
 * Stops the webhook's pending deliveries: cancels their workflows at once. The database flag set
 * before this is what guarantees nothing more is sent (every attempt re-reads it), so a Temporal
 * outage here only delays the bookkeeping; it is logged, not surfaced to the caller.
 */
async function stopOpenDeliveries(deps: WebhookDeps, webhookId: string): Promise<number> {
  const ids = await openDeliveryIds(deps.db, webhookId);
  const results = await Promise.allSettled(ids.map((id) => cancelDeliveryWorkflow(deps.temporal, id)));
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length) {
    deps.logger.warn({ webhookId, failed: failed.length, err: (failed[0] as PromiseRejectedResult).reason }, 'could not cancel some delivery workflows; their next attempt will stop');
  }
  return ids.length;
}

export async function updateWebhook(deps: WebhookDeps, actor: Principal, id: string, patch: UpdateWebhookInput): Promise<WebhookView> {
  if (patch.url !== undefined) checkUrlTarget(deps.http, patch.url);
  const { before, after } = await deps.db.transaction(async (trx) => {
    const current = await findWebhook(trx, actor.orgId, id, true);
    const changes: Record<string, unknown> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.url !== undefined) changes.url = patch.url;
    if (patch.events !== undefined) changes.events = patch.events;
    if (patch.is_active !== undefined) changes.is_active = patch.is_active;
    const [row] = await trx('webhooks').where({ id }).update(changes).returning('*');
    const b = toView(current);
    const a = toView(row as WebhookRow);
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'webhook.update', resourceType: 'webhook', resourceId: id, before: b, after: a });
    return { before: b, after: a };
  });
  if (before.is_active && !after.is_active) await stopOpenDeliveries(deps, id);
  return after;
}

export async function deleteWebhook(deps: WebhookDeps, actor: Principal, id: string): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const current = await findWebhook(trx, actor.orgId, id, true);
    await trx('webhooks').where({ id }).update({ deleted_at: trx.fn.now(), is_active: false });
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'webhook.delete', resourceType: 'webhook', resourceId: id, before: toView(current) });
  });
  await stopOpenDeliveries(deps, id);
}

export async function listDeliveries(deps: WebhookDeps, orgId: string, webhookId: string): Promise<DeliveryView[]> {
  await findWebhook(deps.db, orgId, webhookId);
  const rows = await deps.db('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(DELIVERIES_LISTED);
  return rows.map(toDeliveryView);
}

export interface TestDeliveryResult {
  delivery_id: string;
  status: 'delivered' | 'failed';
  http_status: number | null;
  duration_ms: number;
  error_message: string | null;
}

/**
 * POST /:id/test: one signed `{event:"test", webhook_id, timestamp}` POST right now, through the
 * same safe client as real deliveries, recorded as a delivery with event_type `test` (never
 * retried). Works on paused webhooks too: it is an explicit operator action.
 */
export async function sendTestDelivery(deps: WebhookDeps, actor: Principal, id: string): Promise<TestDeliveryResult> {
  const hook = await findWebhook(deps.db, actor.orgId, id);
  const deliveryId = randomUUID();
  const now = new Date();
  const body = buildBody('test', hook.id, now);
  const secret = decryptWebhookSecret(deps.keyring, hook.id, hook.secret_ciphertext, hook.master_key_id);
  const out = await deps.http.post(hook.url, body, { [SIGNATURE_HEADER]: signBody(body, secret), [DELIVERY_ID_HEADER]: deliveryId });
  const status = out.ok ? 'delivered' : 'failed';
  await deps.db.transaction(async (trx) => {
    await trx('webhook_deliveries').insert({
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
      first_attempt_at: now,
      last_attempt_at: now,
      delivered_at: out.ok ? new Date(now.getTime() + out.durationMs) : null,
      created_at: now,
    });
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'webhook.test',
      resourceType: 'webhook',
      resourceId: hook.id,
      after: { delivery_id: deliveryId, status, http_status: out.httpStatus },
    });
  });
  return { delivery_id: deliveryId, status, http_status: out.httpStatus, duration_ms: out.durationMs, error_message: out.errorMessage };
}
