/**
 * Delivery rules from the spec, shared by the workflow (deterministic: constants only, no imports)
 * and the service code.
 */
export const MAX_ATTEMPTS = 5;
/** Minimum wait after failed attempt n (index n-1) before attempt n+1. */
export const RETRY_DELAYS_MS = [60_000, 120_000, 240_000, 480_000] as const;
/** A retry due this long after the first attempt is not sent; the delivery is dead-lettered as `expired`. */
export const EXPIRY_MS = 24 * 60 * 60 * 1000;
/** The spec's send window; WEBHOOK_ATTEMPT_TIMEOUT_MS overrides it (tests). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/**
 * Waits of a delivery whose webhook has its maximum of sends in flight (not attempts): 1 s doubling to 60 s, jittered.
 */
export const BUSY_WAIT_MIN_MS = 1_000;
export const BUSY_WAIT_MAX_MS = 60_000;
export const MAX_REDIRECTS = 3;
export const MAX_WEBHOOKS_PER_ORG = 20;
export const DELIVERIES_LISTED = 10;

export const deliveryStatuses = ['pending', 'delivered', 'failed', 'dead_lettered', 'cancelled'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export const deliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/** Attempt history: bytes of the last response's body and of its headers kept per attempt. */
export const ATTEMPT_EXCERPT_BYTES = 1024;

/** Run n ≥ 1 of a delivery an operator redelivers (POST …/deliveries/:id/redeliver). */
export const redeliveryWorkflowId = (deliveryId: string, n: number) =>
  `${deliveryWorkflowId(deliveryId)}-redeliver-${n}`;

/** Recoveries (POST /webhooks/:id/recover): one workflow each, pages of deliveries, bounded concurrency. */
export const WEBHOOK_RECOVERY_WORKFLOW = 'webhookRecoveryWorkflow';
export const recoveryWorkflowId = (recoveryId: string) => `webhook-recovery-${recoveryId}`;
export const recoverableStatuses = ['failed', 'dead_lettered'] as const;
/** Deliveries read per page activity, sent at most this many at once, and per workflow run before continue-as-new. */
export const RECOVERY_PAGE_SIZE = 100;
export const RECOVERY_CONCURRENCY = 10;
export const RECOVERY_ITEMS_PER_RUN = 500;
