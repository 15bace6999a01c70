import type { Knex } from 'knex';
import { activeWebhookSql } from '../events/subscribers';
import { DELIVERIES_LISTED, type DeliveryStatus } from './policy';

type Conn = Knex | Knex.Transaction;

export interface WebhookRow {
  id: string;
  org_id: string;
  name: string;
  url: string;
  events: string[];
  is_active: boolean;
  secret_ciphertext: string;
  master_key_id: string;
  secret_hint: string;
  /** The secret a rotation replaced, valid until previous_secret_expires_at (migration 026). */
  previous_secret_ciphertext: string | null;
  previous_master_key_id: string | null;
  previous_secret_expires_at: Date | null;
  disabled_reason: 'failing' | null;
  disabled_at: Date | null;
  /** Custom headers, encrypted (migration 028); null when none. */
  headers_ciphertext: string | null;
  headers_master_key_id: string | null;
  header_names: string[];
  created_at: Date;
  updated_at: Date;
}

/** The webhook columns a send reads: where to, and the secrets to sign with. */
export interface HookToSend {
  id: string;
  url: string;
  secret_ciphertext: string;
  master_key_id: string;
  previous_secret_ciphertext: string | null;
  previous_master_key_id: string | null;
  previous_secret_expires_at: Date | null;
  /** Its failing streak at the claim (auto-disable): a delivered attempt resets it only when > 0. */
  consecutive_failures?: number;
  /** Its custom headers, encrypted (absent or null: none). */
  headers_ciphertext?: string | null;
  headers_master_key_id?: string | null;
}

/** HookToSend's columns on the alias `w` (the webhook's id is selected by each caller). */
const HOOK_TO_SEND = [
  'url',
  'secret_ciphertext',
  'master_key_id',
  'previous_secret_ciphertext',
  'previous_master_key_id',
  'previous_secret_expires_at',
  'consecutive_failures',
  'headers_ciphertext',
  'headers_master_key_id',
];
export const hookToSendSql = (w: string) => HOOK_TO_SEND.map((c) => `${w}.${c}`).join(', ');

const live = (db: Conn, orgId: string) => db<WebhookRow>('webhooks').where({ org_id: orgId }).whereNull('deleted_at');

export const listWebhookRows = async (db: Conn, orgId: string) =>
  (await live(db, orgId).orderBy('created_at').orderBy('id')) as WebhookRow[];

export async function findWebhookRow(
  db: Conn,
  orgId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<WebhookRow | null> {
  const q = live(db, orgId).andWhere({ id }).first();
  return ((await (opts.forUpdate ? q.forUpdate() : q)) as WebhookRow | undefined) ?? null;
}

/** Locks the organization row so concurrent creates count one after the other. */
export async function countWebhooksLocked(trx: Knex.Transaction, orgId: string): Promise<number> {
  await trx('organizations').where({ id: orgId }).forUpdate().first('id');
  const [{ count }] = await live(trx, orgId).count<{ count: number }[]>({ count: '*' });
  return Number(count);
}

export const insertWebhook = async (trx: Knex.Transaction, row: Record<string, unknown>) =>
  (await trx('webhooks').insert(row).returning('*'))[0] as WebhookRow;

export const updateWebhookRow = async (trx: Knex.Transaction, id: string, changes: Record<string, unknown>) =>
  (await trx('webhooks').where({ id }).update(changes).returning('*'))[0] as WebhookRow;

export const softDeleteWebhook = (trx: Knex.Transaction, id: string) =>
  trx('webhooks').where({ id }).update({ deleted_at: trx.fn.now(), is_active: false });

/**
 * Deliveries whose workflow may still attempt (first attempt or a retry pending), with that workflow's id (the original
 * or a redelivery run).
 */
export async function openDeliveries(db: Conn, webhookId: string): Promise<{ id: string; workflow_id: string }[]> {
  return db('webhook_deliveries')
    .select('id', 'workflow_id')
    .where({ webhook_id: webhookId })
    .whereIn('status', ['pending', 'failed'])
    .whereNotNull('workflow_id');
}

/** A webhook_deliveries row as pg returns it. */
export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  org_id: string;
  event_type: string;
  status: DeliveryStatus;
  body: string;
  http_status: number | null;
  error_message: string | null;
  duration_ms: number | null;
  attempt_count: number;
  outcome_attempt: number;
  first_attempt_at: Date | null;
  last_attempt_at: Date | null;
  next_retry_at: Date | null;
  dlq_at: Date | null;
  dlq_reason: string | null;
  delivered_at: Date | null;
  stop_reason: string | null;
  redeliveries: number;
  workflow_id: string | null;
  workflow_started_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const recentDeliveries = (db: Conn, webhookId: string) =>
  db<DeliveryRecord>('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(DELIVERIES_LISTED);

export const insertDelivery = (trx: Knex.Transaction, row: Record<string, unknown>) =>
  trx('webhook_deliveries').insert(row);

/** Columns a delivery attempt may set on its record (timestamps as ISO strings in workflow time). */
export interface DeliveryRecordFields {
  /** Absent: unchanged (a failed recovery attempt leaves a dead-lettered delivery dead-lettered). */
  status?: 'pending' | 'delivered' | 'failed' | 'dead_lettered' | 'cancelled';
  attempt_count?: number;
  /** The attempt whose outcome these fields are (see migration 006). */
  outcome_attempt?: number;
  http_status?: number | null;
  error_message?: string | null;
  duration_ms?: number | null;
  first_attempt_at?: string;
  last_attempt_at?: string;
  next_retry_at?: string | null;
  delivered_at?: string | null;
  dlq_at?: string | null;
  dlq_reason?: string | null;
  /** `cancel_requested` is refined from the webhook row into webhook_disabled / webhook_deleted. */
  stop_reason?: string;
}

export interface ClaimedAttempt {
  body: string;
  hook: HookToSend;
}

/**
 * Claims attempt number `attempt` (attempt_count < n → n) in the statement that re-reads the
 * webhook: null when it is disabled or deleted, or when this attempt number was claimed before.
 * A redelivery (an operator's explicit action) may run on a paused webhook: only deleted stops it.
 * A running attempt proves the workflow started: the claim also sets `workflow_started_at` when the
 * dispatcher has not marked it yet (its marks are batched once a second), in the same statement.
 */
export async function claimAttempt(
  db: Conn,
  deliveryId: string,
  attempt: number,
  opts: { allowPaused?: boolean } = {},
): Promise<ClaimedAttempt | null> {
  const { rows } = await db.raw<{ rows: (HookToSend & { body: string })[] }>(
    `update webhook_deliveries d set attempt_count = ?, workflow_started_at = coalesce(d.workflow_started_at, now())
       from webhooks w
      where d.id = ? and w.id = d.webhook_id and d.attempt_count < ?
        and ${opts.allowPaused ? 'w.deleted_at is null' : activeWebhookSql('w')}
      returning d.body, w.id, ${hookToSendSql('w')}`,
    [attempt, deliveryId, attempt],
  );
  const r = rows[0];
  if (!r) return null;
  const { body, ...hook } = r;
  return { body, hook };
}

export interface DeliveryState {
  status: DeliveryStatus;
  outcome_attempt: number;
  http_status: number | null;
  error_message: string | null;
  duration_ms: number | null;
  webhook_active: boolean;
  webhook_deleted: boolean;
}

/** The record's recorded outcome and its webhook's state, when an attempt could not be claimed. */
export const deliveryState = async (db: Conn, deliveryId: string): Promise<DeliveryState | null> =>
  (await db('webhook_deliveries as d')
    .join('webhooks as w', 'w.id', 'd.webhook_id')
    .where('d.id', deliveryId)
    .first(
      'd.status',
      'd.outcome_attempt',
      'd.http_status',
      'd.error_message',
      'd.duration_ms',
      'w.is_active as webhook_active',
      db.raw('w.deleted_at is not null as webhook_deleted'),
    )) ?? null;

/** The columns an update of the record sets (stop_reason `cancel_requested` refined in SQL). */
export function deliveryUpdate(db: Conn, fields: DeliveryRecordFields): Record<string, unknown> {
  const { stop_reason, ...rest } = fields;
  const update: Record<string, unknown> = { ...rest };
  if (stop_reason === 'cancel_requested') {
    update.stop_reason = db.raw(
      `(select case when w.deleted_at is not null then 'webhook_deleted'
                    when not w.is_active then 'webhook_disabled'
                    else 'cancel_requested' end
          from webhooks w where w.id = webhook_deliveries.webhook_id)`,
    );
  } else if (stop_reason) update.stop_reason = stop_reason;
  return update;
}

export async function updateDeliveryRecord(db: Conn, deliveryId: string, fields: DeliveryRecordFields): Promise<void> {
  await db('webhook_deliveries').where({ id: deliveryId }).update(deliveryUpdate(db, fields));
}
