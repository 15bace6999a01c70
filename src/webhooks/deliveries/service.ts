import type { Principal } from '../../auth/principal';
import { recordAudit } from '../../audit/audit';
import type { AppContext } from '../../context';
import type { Db } from '../../db/knex';
import { conflict, HttpError, notFound } from '../../http/errors';
import type { Metrics } from '../../metrics/metrics';
import { temporalSdk, type Temporal } from '../../temporal/client';
import { listAttempts, type AttemptRow } from '../attempts';
import { redeliveryWorkflowId, WEBHOOK_DELIVERY_WORKFLOW } from '../policy';
import { findWebhookRow, type WebhookRow } from '../queries';
import { toDeliveryView } from '../webhook-deliveries';
import { startDeliveryWorkflow } from '../workflow-client';
import * as q from './queries';
import type { AttemptView, DeliveryDetailView, RedeliveryView } from './schemas';

/** One delivery: its detail with every attempt, and redeliver (docs/webhooks.md). */
export interface DeliveryDeps {
  db: Db;
  temporal: Temporal;
  taskQueue: string;
  metrics: Pick<Metrics, 'workflowStarts'>;
}

export const deliveryDeps = (ctx: AppContext): DeliveryDeps => ({
  db: ctx.db,
  temporal: ctx.temporal,
  taskQueue: ctx.temporal.settings.taskQueue,
  metrics: ctx.metrics,
});

const TEMPORAL_WAIT_MS = 5_000;
/**
 * Run numbers tried past one whose workflow exists without the record knowing (a start whose transaction then failed).
 */
const ORPHAN_RUNS = 3;

async function requireWebhook(db: Db, orgId: string, id: string): Promise<WebhookRow> {
  const row = await findWebhookRow(db, orgId, id);
  if (!row) throw notFound('Webhook');
  return row;
}

export const attemptView = (a: AttemptRow): AttemptView => ({
  number: a.number,
  source: a.source,
  redelivery: a.redelivery,
  recovery_id: a.recovery_id,
  started_at: a.started_at.toISOString(),
  duration_ms: a.duration_ms,
  http_status: a.http_status,
  error_message: a.error_message,
  redirects: a.redirects,
  response_headers: a.response_headers,
  response_body: a.response_body,
  response_body_truncated: a.response_body_truncated,
});

export async function getDelivery(
  deps: DeliveryDeps,
  orgId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryDetailView> {
  await requireWebhook(deps.db, orgId, webhookId);
  const d = await q.findDelivery(deps.db, webhookId, deliveryId);
  if (!d) throw notFound('Delivery');
  const attempts = await listAttempts(deps.db, deliveryId);
  return {
    ...toDeliveryView(d),
    created_at: d.created_at.toISOString(),
    redeliveries: d.redeliveries,
    workflow_id: d.workflow_id,
    attempts: attempts.map(attemptView),
  };
}

/** Temporal calls of the API answer within TEMPORAL_WAIT_MS or become 503 (the redelivery was not started). */
async function temporalCall<T>(deps: DeliveryDeps, fn: () => Promise<T>): Promise<T> {
  try {
    return await deps.temporal.connection.withDeadline(Date.now() + TEMPORAL_WAIT_MS, fn);
  } catch (err) {
    if (err instanceof HttpError || err instanceof temporalSdk().WorkflowNotFoundError) throw err;
    throw new HttpError(
      503,
      'temporal_unavailable',
      `Temporal is unreachable: nothing was redelivered; try again (${(err as Error).message})`,
    );
  }
}

async function isRunning(deps: DeliveryDeps, workflowId: string): Promise<boolean> {
  try {
    const desc = await temporalCall(deps, () => deps.temporal.client.workflow.getHandle(workflowId).describe());
    return desc.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof temporalSdk().WorkflowNotFoundError) return false;
    throw err;
  }
}

const inProgress = (why: string, workflowId?: string | null) =>
  conflict(
    `This delivery is being delivered (${why}); redeliver it once that ends`,
    'delivery_in_progress',
    workflowId ? { workflow_id: workflowId } : undefined,
  );

/**
 * POST …/deliveries/:deliveryId/redeliver: runs the delivery again as workflow
 * `webhook-delivery-<id>-redeliver-<n>`, same body bytes, delivery id and attempt rules, attempt
 * numbers continuing. Any status, paused webhook included (an explicit operator action). The
 * delivery's row stays locked from the check to the commit, so of concurrent calls one starts a
 * run and the others find it running (409): never two workflows of one delivery at once.
 */
export async function redeliver(
  deps: DeliveryDeps,
  actor: Principal,
  webhookId: string,
  deliveryId: string,
): Promise<RedeliveryView> {
  const hook = await requireWebhook(deps.db, actor.orgId, webhookId);
  return deps.db.transaction(async (trx) => {
    const d = await q.findDelivery(trx, webhookId, deliveryId, { forUpdate: true });
    if (!d) throw notFound('Delivery');
    // The dispatcher may still start the original workflow: a redelivery now would run beside it.
    if (d.redeliveries === 0 && d.workflow_id && !d.workflow_started_at && d.status === 'pending')
      throw inProgress('its workflow has not started yet', d.workflow_id);
    if (d.workflow_id && (await isRunning(deps, d.workflow_id)))
      throw inProgress(`workflow ${d.workflow_id} is running`, d.workflow_id);
    const firstAttempt = d.attempt_count + 1;
    for (let n = d.redeliveries + 1; n <= d.redeliveries + ORPHAN_RUNS; n++) {
      const workflowId = redeliveryWorkflowId(deliveryId, n);
      const target = {
        id: deliveryId,
        webhookId,
        orgId: d.org_id,
        eventType: d.event_type,
        url: hook.url,
        redelivery: n,
        firstAttempt,
      };
      const outcome = await temporalCall(deps, () =>
        startDeliveryWorkflow(deps.temporal.client, deps.taskQueue, target),
      );
      deps.metrics.workflowStarts.inc({
        workflow: WEBHOOK_DELIVERY_WORKFLOW,
        outcome: outcome === 'started' ? 'started' : 'already_started',
      });
      if (outcome === 'already') {
        // Run n exists though the record does not count it: running → 409; ended → an orphan, try n + 1.
        if (await isRunning(deps, workflowId)) throw inProgress(`workflow ${workflowId} is running`, workflowId);
        continue;
      }
      await q.startRedelivery(trx, deliveryId, n, workflowId);
      const view = { delivery_id: deliveryId, redelivery: n, workflow_id: workflowId, first_attempt: firstAttempt };
      await recordAudit(trx, {
        orgId: actor.orgId,
        actor,
        action: 'webhook_delivery.redelivered',
        resourceType: 'webhook_delivery',
        resourceId: deliveryId,
        before: { status: d.status, attempt_count: d.attempt_count },
        after: { webhook_id: webhookId, ...view },
      });
      return view;
    }
    throw inProgress('earlier redelivery runs exist that this record does not know of');
  });
}
