/**
 * bench:webhooks' floor (bench/webhooks-floor.ts): what Temporal itself costs per delivery workflow,
 * with none of the service's work. Bundled on its own, never by the service.
 */
import { proxyLocalActivities, proxySinks, type Sinks } from '@temporalio/workflow';
import type { WebhookDeliveryInput } from '../src/webhooks/workflow-types';
import { deliveryStatusTracker } from '../workflows/delivery-status';

const { attemptWebhookDelivery } = proxyLocalActivities<{ attemptWebhookDelivery(id: string): Promise<void> }>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/** Tells the bench's worker process that a run finished (after its activation, no server call). */
export interface FloorSinks extends Sinks {
  floor: { done(): void };
}
const { floor } = proxySinks<FloorSinks>();

/** A workflow that does nothing: one eager start, one workflow task that completes it. */
export async function emptyWorkflow(): Promise<void> {
  floor.done();
}

/**
 * The delivery workflow's happy path with the attempt left out: started with the same options
 * (`startDeliveryWorkflow`: search attributes, memo, summary, eager), one local activity that only
 * notes when it ran, the same status upsert, done. Same name, so the same start call starts it.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<void> {
  const track = deliveryStatusTracker();
  await attemptWebhookDelivery(input.deliveryId);
  track('delivered', 1);
  floor.done();
}
