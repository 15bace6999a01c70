import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../../../activities';
import type { Config } from '../../../src/config';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import { startDeliveryWorkflow } from '../../../src/webhooks/workflow-client';
import type { WebhookDeliveryResult } from '../../../workflows/webhook-delivery';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/https-receiver';
import { activityDepsFor, seedDelivery, seedOrg, webhookTestConfig } from './fixtures';

/**
 * What the delivery workflow's tests (delivery-workflow.test.ts, delivery-attempt-claims.test.ts) share: a fresh
 * database with one organization, the webhook config, the activities' dependencies and an HTTPS receiver on loopback.
 */
export interface DeliveryBed {
  database: TestDatabase;
  config: Config;
  receiver: HttpsReceiver;
  orgId: string;
  deps: ActivityDeps;
}

export async function startDeliveryBed(): Promise<DeliveryBed> {
  const database = await freshDatabase();
  const config = await webhookTestConfig();
  const receiver = await startHttpsReceiver();
  const orgId = await seedOrg(database.db);
  return { database, config, receiver, orgId, deps: activityDepsFor(database.db, config) };
}

export async function stopDeliveryBed(bed: DeliveryBed | undefined): Promise<void> {
  await bed?.deps.http.close();
  await bed?.receiver.close();
  await bed?.database.drop();
}

/** Seeds a delivery to the bed's receiver and starts its workflow; answers the record and the workflow's handle. */
export async function startDelivery(
  bed: DeliveryBed,
  client: Client,
  taskQueue: string,
  webhookId: string,
  eventType = 'trace.completed',
) {
  const { database, orgId, receiver } = bed;
  const d = await seedDelivery(database.db, webhookId, orgId, eventType);
  await startDeliveryWorkflow(client, taskQueue, { id: d.id, webhookId, orgId, eventType, url: receiver.url });
  return {
    ...d,
    handle: client.workflow.getHandle<() => Promise<WebhookDeliveryResult>>(deliveryWorkflowId(d.id)),
  };
}
