import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { searchAttributes } from '../temporal/names';
import { deliveryWorkflowId, WEBHOOK_DELIVERY_WORKFLOW } from './policy';

export interface DeliveryToStart {
  id: string;
  webhookId: string;
  orgId: string;
  eventType: string;
  url: string;
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
    await client.workflow.start<typeof webhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW, {
      taskQueue,
      // Only with a client on a worker's NativeConnection polling `taskQueue`: the server returns
      // the first workflow task with the start (no matching, no poll); otherwise it is ignored.
      requestEagerStart: opts.eager,
      workflowId: deliveryWorkflowId(d.id),
      args: [{ deliveryId: d.id, webhookId: d.webhookId, orgId: d.orgId, eventType: d.eventType }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: searchAttributes.WebhookId, value: d.webhookId },
        { key: searchAttributes.EventType, value: d.eventType },
        { key: searchAttributes.OrganizationId, value: d.orgId },
      ],
      memo: { deliveryId: d.id, webhookId: d.webhookId, url: d.url },
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already';
    throw err;
  }
}

/** Asks a delivery's workflow to stop retrying (webhook disabled or deleted). Gone or finished is fine. */
export async function cancelDeliveryWorkflow(client: Client, deliveryId: string): Promise<void> {
  try {
    await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).cancel();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    // Cancelling a workflow that already completed answers NotFound-like errors on some servers.
    if (/not found|already completed/i.test((err as Error).message)) return;
    throw err;
  }
}
