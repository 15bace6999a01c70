import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal';
import { actorLabel } from '../../auth/principal';
import { recordAudit } from '../../audit/audit';
import type { AppContext } from '../../context';
import { isoOrNull } from '../../db/convert';
import type { Db } from '../../db/knex';
import { badRequest, conflict, HttpError, notFound } from '../../http/errors';
import type { Logger } from '../../logger';
import { temporalSdk, type Temporal } from '../../temporal/client';
import { searchAttributes } from '../../temporal/names';
import { recoverySummary } from '../../temporal/summaries';
import { recoverableStatuses, recoveryWorkflowId, WEBHOOK_RECOVERY_WORKFLOW } from '../policy';
import { findWebhookRow, type WebhookRow } from '../queries';
import type { WebhookRecoveryWorkflow } from '../workflow-types';
import * as q from './queries';
import type { RecoverInput, RecoveryView } from './schemas';

/** Recoveries: one Temporal workflow each, redelivering a window of failed deliveries (docs/webhooks.md). */
export interface RecoveryDeps {
  db: Db;
  temporal: Temporal;
  taskQueue: string;
  logger: Logger;
}

export const recoveryDeps = (ctx: AppContext): RecoveryDeps => ({
  db: ctx.db,
  temporal: ctx.temporal,
  taskQueue: ctx.temporal.settings.taskQueue,
  logger: ctx.logger,
});

const TEMPORAL_WAIT_MS = 5_000;

const toRecoveryView = (r: q.RecoveryRow): RecoveryView => ({
  id: r.id,
  webhook_id: r.webhook_id,
  since: r.since.toISOString(),
  until: r.until.toISOString(),
  statuses: r.statuses as RecoveryView['statuses'],
  status: r.status,
  matched: r.matched,
  redelivered: r.redelivered,
  delivered: r.delivered,
  failed: r.failed,
  skipped: r.skipped,
  workflow_id: r.workflow_id,
  error: r.error,
  created_by: r.created_by,
  created_at: r.created_at.toISOString(),
  finished_at: isoOrNull(r.finished_at),
});

async function requireWebhook(db: Db, orgId: string, id: string): Promise<WebhookRow> {
  const row = await findWebhookRow(db, orgId, id);
  if (!row) throw notFound('Webhook');
  return row;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/**
 * POST /webhooks/:id/recover: records the recovery and starts its workflow. One running recovery
 * per webhook (a partial unique index): a second one over the same window would send its deliveries
 * twice, so it is 409 `recovery_running`. Paused webhooks too (an explicit operator action).
 */
export async function createRecovery(
  deps: RecoveryDeps,
  actor: Principal,
  webhookId: string,
  input: RecoverInput,
): Promise<RecoveryView> {
  const hook = await requireWebhook(deps.db, actor.orgId, webhookId);
  const until = input.until ? new Date(input.until) : new Date();
  const since = new Date(input.since);
  if (since >= until) throw badRequest('Invalid body.since: must be before until (default: now)', 'validation_error');
  const id = randomUUID();
  const workflowId = recoveryWorkflowId(id);
  const statuses = input.statuses ?? [...recoverableStatuses];
  try {
    await deps.db.transaction(async (trx) => {
      await q.insertRecovery(trx, {
        id,
        webhook_id: hook.id,
        org_id: hook.org_id,
        since,
        until,
        statuses,
        workflow_id: workflowId,
        created_by: actorLabel(actor),
      });
      const after = { since: since.toISOString(), until: until.toISOString(), statuses, workflow_id: workflowId };
      await recordAudit(trx, {
        orgId: actor.orgId,
        actor,
        action: 'webhook_recovery.created',
        resourceType: 'webhook_recovery',
        resourceId: id,
        after: { webhook_id: hook.id, ...after },
      });
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const running = (await q.runningRecoveries(deps.db, hook.id))[0];
    throw conflict(
      'A recovery of this webhook is running; wait for it or cancel it first',
      'recovery_running',
      running ? { recovery_id: running.id } : undefined,
    );
  }
  try {
    await deps.temporal.connection.withDeadline(Date.now() + TEMPORAL_WAIT_MS, () =>
      deps.temporal.client.workflow.start<WebhookRecoveryWorkflow>(WEBHOOK_RECOVERY_WORKFLOW, {
        taskQueue: deps.taskQueue,
        workflowId,
        args: [{ recoveryId: id }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: searchAttributes.WebhookId, value: hook.id },
          { key: searchAttributes.OrganizationId, value: hook.org_id },
        ],
        memo: { recoveryId: id, webhookId: hook.id, since: since.toISOString(), until: until.toISOString(), statuses },
        staticSummary: recoverySummary({ url: hook.url, since, statuses }),
      }),
    );
  } catch (err) {
    await q.endRecovery(
      deps.db,
      id,
      'failed',
      `could not start the workflow: ${(err as Error).message}`.slice(0, 1000),
    );
    throw new HttpError(
      503,
      'temporal_unavailable',
      'Temporal is unreachable: the recovery was not started (it is recorded as failed); try again',
    );
  }
  return toRecoveryView((await q.findRecovery(deps.db, hook.id, id))!);
}

async function requireRecovery(
  deps: RecoveryDeps,
  orgId: string,
  webhookId: string,
  id: string,
): Promise<q.RecoveryRow> {
  await requireWebhook(deps.db, orgId, webhookId);
  const r = await q.findRecovery(deps.db, webhookId, id);
  if (!r) throw notFound('Recovery');
  return r;
}

export const getRecovery = async (deps: RecoveryDeps, orgId: string, webhookId: string, id: string) =>
  toRecoveryView(await requireRecovery(deps, orgId, webhookId, id));

export async function listRecoveries(
  deps: RecoveryDeps,
  orgId: string,
  webhookId: string,
  limit: number,
): Promise<RecoveryView[]> {
  await requireWebhook(deps.db, orgId, webhookId);
  return (await q.listRecoveryRows(deps.db, webhookId, limit)).map(toRecoveryView);
}

/**
 * Cancels the workflow (gone or finished is fine) and marks the recovery cancelled: the next page would not start
 * anyway.
 */
async function stop(deps: RecoveryDeps, r: Pick<q.RecoveryRow, 'id' | 'workflow_id'>): Promise<void> {
  try {
    await deps.temporal.connection.withDeadline(Date.now() + TEMPORAL_WAIT_MS, () =>
      deps.temporal.client.workflow.getHandle(r.workflow_id).cancel(),
    );
  } catch (err) {
    if (
      !(err instanceof temporalSdk().WorkflowNotFoundError) &&
      !/not found|already completed/i.test((err as Error).message)
    ) {
      // The row is marked anyway: every page re-reads it, so the recovery stops at the next page at the latest.
      deps.logger.warn({ err, recoveryId: r.id }, 'could not cancel the recovery workflow; it stops at its next page');
    }
  }
  await q.endRecovery(deps.db, r.id, 'cancelled');
}

/**
 * POST …/recoveries/:rid/cancel: stops a running recovery (its sends in flight finish); a finished one is answered as
 * it is.
 */
export async function cancelRecovery(
  deps: RecoveryDeps,
  actor: Principal,
  webhookId: string,
  id: string,
): Promise<RecoveryView> {
  const r = await requireRecovery(deps, actor.orgId, webhookId, id);
  if (r.status === 'running') {
    await stop(deps, r);
    await recordAudit(deps.db, {
      orgId: actor.orgId,
      actor,
      action: 'webhook_recovery.cancelled',
      resourceType: 'webhook_recovery',
      resourceId: id,
      before: { status: r.status },
      after: { status: 'cancelled' },
    });
  }
  return getRecovery(deps, actor.orgId, webhookId, id);
}

/** Pausing or deleting a webhook stops its running recovery, as it stops its pending deliveries. */
export async function stopRunningRecoveries(deps: RecoveryDeps, webhookId: string): Promise<void> {
  for (const r of await q.runningRecoveries(deps.db, webhookId)) await stop(deps, r);
}
