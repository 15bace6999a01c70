/**
 * Delivery rules from the spec, shared by the workflow (deterministic: constants only, no imports)
 * and the service code.
 */
export const MAX_ATTEMPTS = 5;
/** Minimum wait after failed attempt n (index n-1) before attempt n+1. */
export const RETRY_DELAYS_MS = [60_000, 120_000, 240_000, 480_000] as const;
/** A retry due this long after the first attempt is not sent; the delivery is dead-lettered as `expired`. */
export const EXPIRY_MS = 24 * 60 * 60 * 1000;
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const MAX_REDIRECTS = 3;
export const MAX_WEBHOOKS_PER_ORG = 20;
export const DELIVERIES_LISTED = 10;

export const deliveryStatuses = ['pending', 'delivered', 'failed', 'dead_lettered', 'cancelled'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export const deliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;
