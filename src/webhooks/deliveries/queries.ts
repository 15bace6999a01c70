import type { Knex } from 'knex';
import type { DeliveryRecord } from '../queries';

type Conn = Knex | Knex.Transaction;

/** A webhook_deliveries row (src/webhooks/queries.ts). */
export type DeliveryRow = DeliveryRecord;

/** A delivery of the webhook (the webhook was checked against the organization), locked for a redelivery when asked. */
export async function findDelivery(
  db: Conn,
  webhookId: string,
  deliveryId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<DeliveryRow | null> {
  const q = db('webhook_deliveries').where({ id: deliveryId, webhook_id: webhookId }).first();
  return ((await (opts.forUpdate ? q.forUpdate() : q)) as DeliveryRow | undefined) ?? null;
}

/**
 * The record as a new redelivery run `n` starts: pending again, with what said the previous run
 * ended cleared (its http_status and error stay until the first new attempt replaces them).
 */
export const startRedelivery = (trx: Knex.Transaction, deliveryId: string, n: number, workflowId: string) =>
  trx('webhook_deliveries')
    .where({ id: deliveryId })
    .update({
      redeliveries: n,
      workflow_id: workflowId,
      workflow_started_at: trx.raw('coalesce(workflow_started_at, now())'),
      status: 'pending',
      next_retry_at: null,
      delivered_at: null,
      dlq_at: null,
      dlq_reason: null,
      stop_reason: null,
    });
