import type { Knex } from 'knex';
import type { AttemptEvidence } from './evidence';
import { resetFailingSql } from './health';
import { deliveryUpdate, type DeliveryRecordFields } from './queries';

type Conn = Knex | Knex.Transaction;

/** Who made an attempt: the delivery's own workflow, the test route, a redelivery run, a recovery. */
type AttemptSource = 'delivery' | 'test' | 'redelivery' | 'recovery';

/** One attempt of the history (webhook_delivery_attempts, migration 023). */
export interface AttemptRecord {
  number: number;
  source: AttemptSource;
  redelivery?: number | null;
  recovery_id?: string | null;
  started_at: string | Date;
  duration_ms: number;
  http_status: number | null;
  error_message: string | null;
  evidence: AttemptEvidence;
}

/** Most recent attempts a delivery's detail lists (attempt_count says how many there were). */
const ATTEMPTS_LISTED = 100;

const columns = (db: Conn, deliveryId: string, a: AttemptRecord) => ({
  delivery_id: deliveryId,
  // Denormalised from the delivery (migration 029): a webhook's attempt log reads its own index.
  webhook_id: db.raw('(select webhook_id from webhook_deliveries where id = ?)', [deliveryId]),
  number: a.number,
  source: a.source,
  redelivery: a.redelivery ?? null,
  recovery_id: a.recovery_id ?? null,
  started_at: a.started_at,
  duration_ms: a.duration_ms,
  http_status: a.http_status,
  error_message: a.error_message,
  redirects: JSON.stringify(a.evidence.redirects),
  response_headers: a.evidence.response_headers,
  response_body: a.evidence.response_body,
  response_body_truncated: a.evidence.response_body_truncated,
});

/**
 * Appends an attempt (a second write of the same number is ignored), e.g. in the transaction that inserts a test
 * delivery.
 */
export const insertAttempt = (db: Conn, deliveryId: string, a: AttemptRecord) =>
  db('webhook_delivery_attempts')
    .insert(columns(db, deliveryId, a))
    .onConflict(['delivery_id', 'number'])
    .ignore();

/**
 * Records attempt n in ONE statement: its outcome on the delivery record (only when no later
 * attempt's outcome is recorded there: outcome_attempt < n), the attempt in the history, and,
 * for a recovery, the outcome of its claim row. Both or neither commit, so the history never
 * misses an attempt whose outcome the record shows, nor holds one twice.
 */
export async function recordAttempt(
  db: Conn,
  deliveryId: string,
  fields: DeliveryRecordFields,
  attempt: AttemptRecord,
  item?: { recoveryId: string; outcome: 'delivered' | 'failed' | 'interrupted' },
  /** The webhook, when it had a failing streak at the claim: a delivered attempt ends it (auto-disable). */
  streakOf?: string,
): Promise<void> {
  const update = deliveryUpdate(db, { ...fields, outcome_attempt: attempt.number });
  // Never lowers the count: a recovery may have claimed a later number meanwhile.
  if (update.attempt_count !== undefined) update.attempt_count = db.raw('greatest(attempt_count, ?)', [attempt.number]);
  const rec = db('webhook_deliveries')
    .where({ id: deliveryId })
    .andWhere('outcome_attempt', '<', attempt.number)
    .update(update)
    .toSQL();
  const claim = item
    ? db('webhook_recovery_items')
        .where({ recovery_id: item.recoveryId, delivery_id: deliveryId })
        .update({ outcome: item.outcome })
        .toSQL()
    : undefined;
  const ins = insertAttempt(db, deliveryId, attempt).toSQL();
  // Only a webhook with a streak gets the reset: the healthy happy path's statement is unchanged.
  const healthy = fields.status === 'delivered' && streakOf ? `, healthy as (${resetFailingSql('?')})` : '';
  // Data-modifying WITH clauses run exactly once whether or not the main statement reads them.
  await db.raw(`with rec as (${rec.sql})${claim ? `, claim as (${claim.sql})` : ''}${healthy} ${ins.sql}`, [
    ...rec.bindings,
    ...(claim?.bindings ?? []),
    ...(healthy && streakOf ? [streakOf] : []),
    ...ins.bindings,
  ]);
}

export interface AttemptRow {
  number: number;
  source: AttemptSource;
  redelivery: number | null;
  recovery_id: string | null;
  started_at: Date;
  duration_ms: number;
  http_status: number | null;
  error_message: string | null;
  redirects: { status: number; location: string }[];
  response_headers: string | null;
  response_body: string | null;
  response_body_truncated: boolean;
}

/** The delivery's latest attempts (up to ATTEMPTS_LISTED), oldest first. */
export async function listAttempts(db: Conn, deliveryId: string): Promise<AttemptRow[]> {
  const latest = await db('webhook_delivery_attempts')
    .where({ delivery_id: deliveryId })
    .orderBy('number', 'desc')
    .limit(ATTEMPTS_LISTED);
  return (latest as AttemptRow[]).reverse();
}
