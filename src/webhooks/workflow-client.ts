import type { Client } from '@temporalio/client';
import { temporalSdk } from '../temporal/client';
import { searchAttributes } from '../temporal/names';
import { deliverySummary } from '../temporal/summaries';
import { deliveryWorkflowId, redeliveryWorkflowId, WEBHOOK_DELIVERY_WORKFLOW } from './policy';
import type { WebhookDeliveryWorkflow } from './workflow-types';

export interface DeliveryToStart {
  id: string;
  webhookId: string;
  orgId: string;
  eventType: string;
  url: string;
  /** Redelivery run n ≥ 1 (workflow `…-redeliver-<n>`) and its first attempt number. */
  redelivery?: number;
  firstAttempt?: number;
}

/**
 * Starts the delivery's workflow. The id is derived from the delivery id and never reused
 * (REJECT_DUPLICATE), so starting twice (a dispatcher retry after a lost answer, two dispatchers)
 * is a harmless no-op: `already` counts as started.
 */
export async function startDeliveryWorkflow(
  client: Client,
  taskQueue: string,
  d: DeliveryToStart,
  opts: { eager?: boolean } = {},
): Promise<'started' | 'already'> {
  try {
    await client.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW, {
      taskQueue,
      // Only with a client on a worker's NativeConnection polling `taskQueue`: the server returns
      // the first workflow task with the start (no matching, no poll); otherwise it is ignored.
      requestEagerStart: opts.eager,
      workflowId: d.redelivery ? redeliveryWorkflowId(d.id, d.redelivery) : deliveryWorkflowId(d.id),
      args: [
        {
          deliveryId: d.id,
          webhookId: d.webhookId,
          orgId: d.orgId,
          eventType: d.eventType,
          ...(d.redelivery ? { redelivery: d.redelivery, firstAttempt: d.firstAttempt } : {}),
        },
      ],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: searchAttributes.WebhookId, value: d.webhookId },
        { key: searchAttributes.EventType, value: d.eventType },
        { key: searchAttributes.OrganizationId, value: d.orgId },
        // Initial values; the workflow upserts them as the delivery moves on (workflows/delivery-status.ts).
        { key: searchAttributes.DeliveryStatus, value: 'pending' },
        { key: searchAttributes.AttemptCount, value: (d.firstAttempt ?? 1) - 1 },
      ],
      memo: { deliveryId: d.id, webhookId: d.webhookId, url: d.url },
      staticSummary: deliverySummary({ eventType: d.eventType, url: d.url, redelivery: d.redelivery }),
    });
    return 'started';
  } catch (err) {
    if (err instanceof temporalSdk().WorkflowExecutionAlreadyStartedError) return 'already';
    throw err;
  }
}

/**
 * Asks a delivery's workflow (the original, or `workflowId`: a redelivery run) to stop retrying (webhook disabled or
 * deleted). Gone or finished is fine.
 */
export async function cancelDeliveryWorkflow(
  client: Client,
  deliveryId: string,
  workflowId = deliveryWorkflowId(deliveryId),
): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).cancel();
  } catch (err) {
    if (err instanceof temporalSdk().WorkflowNotFoundError) return;
    // Cancelling a workflow that already completed answers NotFound-like errors on some servers.
    if (/not found|already completed/i.test((err as Error).message)) return;
    throw err;
  }
}
