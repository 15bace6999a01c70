import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { recordAudit } from '../audit/audit';
import type { AppContext } from '../context';
import type { Db } from '../db/knex';
import { HttpError, notFound } from '../http/errors';
import type { Logger } from '../logger';
import type { Temporal } from '../temporal/client';
import { MAX_WEBHOOKS_PER_ORG } from './policy';
import * as q from './queries';
import { HEALTHY } from './health';
import type { CreateWebhookInput, RotateSecretInput, UpdateWebhookInput, WebhookView } from './schemas';
import { customHeaderColumns } from './custom-headers';
import type { SendDeps } from './send';
import { encryptWebhookSecret, generateWebhookSecret, secretHint } from './secrets';
import type { SafeHttpClient } from './safe-http';
import { refuseWebhookUrl } from './url-policy';
import { stopRunningRecoveries } from './recoveries/service';
import { toView } from './view';
import { cancelDeliveryWorkflow } from './workflow-client';

declare module '../context' {
  interface FeatureServices {
    /**
     * The SSRF-guarded HTTPS client of webhook deliveries (test sends and the worker's attempts), built by the runtime.
     */
    webhookHttp: SafeHttpClient;
  }
}

export interface WebhookDeps extends SendDeps {
  db: Db;
  temporal: Temporal;
  logger: Logger;
}

/** The service's dependencies, all built once by the runtime. */
export const webhookDeps = (ctx: AppContext): WebhookDeps => ({
  db: ctx.db,
  keyring: ctx.keyring,
  temporal: ctx.temporal,
  http: ctx.webhookHttp,
  metrics: ctx.metrics,
  logger: ctx.logger,
});

export async function requireWebhook(
  db: Parameters<typeof q.findWebhookRow>[0],
  orgId: string,
  id: string,
  forUpdate = false,
): Promise<q.WebhookRow> {
  const row = await q.findWebhookRow(db, orgId, id, { forUpdate });
  if (!row) throw notFound('Webhook');
  return row;
}

/**
 * The address rule of the URL policy at registration (the schema checked the others); every send re-checks every hop.
 */
function assertReachableUrl(deps: WebhookDeps, url: string): void {
  const refusal = refuseWebhookUrl(url, deps.http.policy);
  if (refusal?.verdict)
    throw new HttpError(
      400,
      'webhook_url_forbidden',
      `Invalid body.url: ${refusal.verdict.address} is a ${refusal.verdict.reason} address; ` +
        'webhooks must reach a public HTTPS endpoint',
    );
}

export const listWebhooks = async (deps: WebhookDeps, orgId: string) =>
  (await q.listWebhookRows(deps.db, orgId)).map((r) => toView(r));

export const getWebhook = async (deps: WebhookDeps, orgId: string, id: string) =>
  toView(await requireWebhook(deps.db, orgId, id));

/** Registers a webhook; the organization row is locked for the count, so concurrent creates cannot pass 20 together. */
export async function createWebhook(
  deps: WebhookDeps,
  actor: Principal,
  input: CreateWebhookInput,
): Promise<WebhookView> {
  assertReachableUrl(deps, input.url);
  const orgId = actor.orgId;
  return deps.db.transaction(async (trx) => {
    const count = await q.countWebhooksLocked(trx, orgId);
    if (count >= MAX_WEBHOOKS_PER_ORG) {
      throw new HttpError(
        409,
        'webhook_limit_reached',
        `An organization can have at most ${MAX_WEBHOOKS_PER_ORG} webhooks; delete one before adding another`,
        {
          limit: MAX_WEBHOOKS_PER_ORG,
          count,
        },
      );
    }
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const enc = encryptWebhookSecret(deps.keyring, id, secret);
    const row = await q.insertWebhook(trx, {
      id,
      org_id: orgId,
      name: input.name,
      url: input.url,
      events: input.events,
      is_active: input.is_active,
      secret_ciphertext: enc.ciphertext,
      master_key_id: enc.keyId,
      secret_hint: secretHint(secret),
      ...customHeaderColumns(deps.keyring, id, input.headers ?? {}),
      created_by: actor.kind === 'user' ? actor.userId : null,
    });
    await recordAudit(trx, {
      orgId,
      actor,
      action: 'webhook.created',
      resourceType: 'webhook',
      resourceId: id,
      after: toView(row),
    });
    return toView(row, secret);
  });
}

/**
 * Stops the webhook's pending deliveries: cancels their workflows at once. The database flag set
 * before this is what guarantees nothing more is sent (every attempt re-reads it), so a Temporal
 * outage here only delays the bookkeeping; it is logged, not surfaced to the caller.
 */
async function stopOpenDeliveries(deps: WebhookDeps, webhookId: string): Promise<void> {
  const open = await q.openDeliveries(deps.db, webhookId);
  const failed = (
    await Promise.allSettled(open.map((d) => cancelDeliveryWorkflow(deps.temporal.client, d.id, d.workflow_id)))
  ).filter((r) => r.status === 'rejected');
  if (failed.length) {
    deps.logger.warn(
      { webhookId, failed: failed.length, err: (failed[0] as PromiseRejectedResult).reason },
      'could not cancel some delivery workflows; their next attempt will stop',
    );
  }
  await stopRunningRecoveries({ ...deps, taskQueue: deps.temporal.settings.taskQueue }, webhookId);
}

export async function updateWebhook(
  deps: WebhookDeps,
  actor: Principal,
  id: string,
  patch: UpdateWebhookInput,
): Promise<WebhookView> {
  if (patch.url !== undefined) assertReachableUrl(deps, patch.url);
  const { before, after } = await deps.db.transaction(async (trx) => {
    const b = toView(await requireWebhook(trx, actor.orgId, id, true));
    const { headers, ...fields } = patch;
    const changes: Record<string, unknown> = Object.fromEntries(
      Object.entries(fields).filter(([, v]) => v !== undefined),
    );
    // A header set replaces the previous one whole ({} removes them).
    if (headers !== undefined) Object.assign(changes, customHeaderColumns(deps.keyring, id, headers));
    // Re-enabling clears why it was disabled and starts the failing streak afresh.
    if (patch.is_active && !b.is_active) Object.assign(changes, HEALTHY);
    const a = toView(await q.updateWebhookRow(trx, id, changes));
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'webhook.updated',
      resourceType: 'webhook',
      resourceId: id,
      before: b,
      after: a,
    });
    return { before: b, after: a };
  });
  if (before.is_active && !after.is_active) await stopOpenDeliveries(deps, id);
  return after;
}

/**
 * POST /:id/secret/rotate: a new secret, shown once in the answer. The replaced one keeps signing
 * (second entry of `webhook-signature`) for `previous_expires_in_seconds`; X-Service-Signature
 * uses the new one at once. A rotation during an overlap drops the oldest secret.
 */
export async function rotateSecret(
  deps: WebhookDeps,
  actor: Principal,
  id: string,
  input: RotateSecretInput,
): Promise<WebhookView> {
  const overlap = input.previous_expires_in_seconds;
  return deps.db.transaction(async (trx) => {
    const row = await requireWebhook(trx, actor.orgId, id, true);
    const secret = generateWebhookSecret();
    const enc = encryptWebhookSecret(deps.keyring, id, secret);
    const keep = overlap > 0;
    const updated = await q.updateWebhookRow(trx, id, {
      secret_ciphertext: enc.ciphertext,
      master_key_id: enc.keyId,
      secret_hint: secretHint(secret),
      // Same webhook id, same binding: the old ciphertext moves as it is.
      previous_secret_ciphertext: keep ? row.secret_ciphertext : null,
      previous_master_key_id: keep ? row.master_key_id : null,
      previous_secret_expires_at: keep ? trx.raw('now() + make_interval(secs => ?)', [overlap]) : null,
    });
    const after = { ...toView(updated), previous_valid_until: toView(updated).previous_secret_expires_at };
    const what = { resourceType: 'webhook', resourceId: id, before: toView(row), after };
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'webhook.secret_rotated', ...what });
    return toView(updated, secret);
  });
}

export async function deleteWebhook(deps: WebhookDeps, actor: Principal, id: string): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const current = await requireWebhook(trx, actor.orgId, id, true);
    await q.softDeleteWebhook(trx, id);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'webhook.deleted',
      resourceType: 'webhook',
      resourceId: id,
      before: toView(current),
    });
  });
  await stopOpenDeliveries(deps, id);
}
