import type { RecoveryCursor } from './recoveries/queries';

/**
 * The inputs and results of the webhook workflows (workflows/webhook-delivery.ts and
 * workflows/webhook-recovery.ts). They live in the feature, so the code that starts the workflows
 * (src/webhooks/workflow-client.ts, src/webhooks/recoveries/service.ts) types its calls without
 * importing workflow code; the workflows import these types (erased at build: nothing is bundled).
 */
export interface WebhookDeliveryInput {
  deliveryId: string;
  webhookId: string;
  orgId: string;
  eventType: string;
  /**
   * Run n ≥ 1 an operator started (POST …/redeliver, workflow `…-redeliver-<n>`): the same rules,
   * attempt numbers continuing from `firstAttempt` (the delivery's attempt_count + 1 at the start).
   */
  redelivery?: number;
  firstAttempt?: number;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'dead_lettered' | 'cancelled';
  attempts: number;
  dlqReason?: 'max_attempts' | 'expired';
  stopReason?: string;
}

/** The delivery workflow's type: `client.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW, …)`. */
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;

export interface WebhookRecoveryInput {
  recoveryId: string;
  cursor?: RecoveryCursor | null;
  /** Deliveries per page activity, and per run before continue-as-new (tests make them small). */
  pageSize?: number;
  itemsPerRun?: number;
}

export interface WebhookRecoveryResult {
  status: 'completed' | 'cancelled';
  reason?: string;
}

/** The recovery workflow's type: `client.workflow.start<WebhookRecoveryWorkflow>(WEBHOOK_RECOVERY_WORKFLOW, …)`. */
export type WebhookRecoveryWorkflow = (input: WebhookRecoveryInput) => Promise<WebhookRecoveryResult>;
