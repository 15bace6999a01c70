import type { Knex } from 'knex';
import { isoSql } from '../../http/pagination';
import { hookToSendSql, type HookToSend } from '../queries';

type Conn = Knex | Knex.Transaction;

export interface RecoveryRow {
  id: string;
  webhook_id: string;
  org_id: string;
  since: Date;
  until: Date;
  statuses: string[];
  status: 'running' | 'completed' | 'cancelled' | 'failed';
  matched: number;
  redelivered: number;
  delivered: number;
  failed: number;
  skipped: number;
  workflow_id: string;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** Keyset position in a recovery's window: the last delivery's creation time (microseconds, UTC) and id. */
export interface RecoveryCursor {
  at: string;
  id: string;
}

export const insertRecovery = (trx: Knex.Transaction, row: Partial<RecoveryRow>) =>
  trx('webhook_recoveries').insert(row);

export const findRecovery = async (db: Conn, webhookId: string, id: string): Promise<RecoveryRow | null> =>
  ((await db('webhook_recoveries').where({ id, webhook_id: webhookId }).first()) as RecoveryRow | undefined) ?? null;

export const recoveryById = async (
  db: Conn,
  id: string,
): Promise<(RecoveryRow & { webhook_deleted: boolean }) | null> =>
  ((await db('webhook_recoveries as r')
    .join('webhooks as w', 'w.id', 'r.webhook_id')
    .where('r.id', id)
    .first('r.*', db.raw('w.deleted_at is not null as webhook_deleted'))) as
    (RecoveryRow & { webhook_deleted: boolean }) | undefined) ?? null;

export const recoveryStatus = async (db: Conn, id: string): Promise<string | undefined> =>
  (await db('webhook_recoveries').where({ id }).first('status'))?.status;

export const listRecoveryRows = async (db: Conn, webhookId: string, limit: number): Promise<RecoveryRow[]> =>
  db('webhook_recoveries')
    .where({ webhook_id: webhookId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);

export const runningRecoveries = (db: Conn, webhookId: string): Promise<Pick<RecoveryRow, 'id' | 'workflow_id'>[]> =>
  db('webhook_recoveries').select('id', 'workflow_id').where({ webhook_id: webhookId, status: 'running' });

/** Ends a running recovery (a finished one keeps its status: the API's cancel and the workflow's end may both come). */
export const endRecovery = (
  db: Conn,
  id: string,
  status: 'completed' | 'cancelled' | 'failed',
  error: string | null = null,
) => db('webhook_recoveries').where({ id, status: 'running' }).update({ status, error, finished_at: db.fn.now() });

/**
 * Adds the claim rows that got an outcome since the last fold to the recovery's counters, each
 * exactly once (the rows are flagged `counted` in the same statement), so a page activity run
 * twice after a crash never counts a delivery twice.
 */
export const foldCounters = (db: Conn, id: string) =>
  db.raw(
    `with c as (
       update webhook_recovery_items set counted = true
        where recovery_id = ? and not counted and outcome is not null
       returning outcome)
     update webhook_recoveries set
       matched = matched + (select count(*) from c),
       redelivered = redelivered + (select count(*) from c where outcome <> 'skipped'),
       delivered = delivered + (select count(*) from c where outcome = 'delivered'),
       failed = failed + (select count(*) from c where outcome in ('failed', 'interrupted')),
       skipped = skipped + (select count(*) from c where outcome = 'skipped')
      where id = ?`,
    [id, id],
  );

/**
 * The next page of the window's matching deliveries after `cursor`, in (created_at, id) order. Test deliveries are
 * never recovered.
 */
export async function recoverablePage(
  db: Conn,
  r: RecoveryRow,
  cursor: RecoveryCursor | null,
  limit: number,
): Promise<{ id: string; at: string }[]> {
  const { rows } = await db.raw<{ rows: { id: string; at: string }[] }>(
    `select d.id, ${isoSql('d.created_at')} as at
       from webhook_deliveries d
      where d.webhook_id = ? and d.status in ('failed', 'dead_lettered') and d.status = any(?::text[])
        and d.created_at >= ? and d.created_at < ? and d.event_type <> 'test'
        ${cursor ? 'and (d.created_at, d.id) > (?::timestamptz, ?::uuid)' : ''}
      order by d.created_at, d.id
      limit ?`,
    [r.webhook_id, r.statuses, r.since, r.until, ...(cursor ? [cursor.at, cursor.id] : []), limit],
  );
  return rows;
}

export interface ClaimedItem {
  attempt: number;
  body: string;
  hook: HookToSend;
}

/**
 * Claims the delivery for the recovery in ONE statement: its next attempt number (while it still
 * has a recoverable status and its webhook is not deleted) and the recovery's claim row for it.
 * Null when it was claimed by this recovery before, or no longer qualifies. Two runs of a page
 * racing for one delivery cannot both pass: the second insert of the claim row fails the whole
 * statement (primary key), its attempt-number update included.
 */
export async function claimItem(
  db: Conn,
  recoveryId: string,
  deliveryId: string,
  statuses: string[],
): Promise<ClaimedItem | null> {
  type Row = Omit<HookToSend, 'id'> & { attempt: number; body: string; hook_id: string };
  const { rows } = await db.raw<{ rows: Row[] }>(
    `with claimed as (
       update webhook_deliveries d set attempt_count = d.attempt_count + 1
         from webhooks w
        where d.id = ? and w.id = d.webhook_id and w.deleted_at is null and d.status = any(?::text[])
          and not exists (select 1 from webhook_recovery_items i where i.recovery_id = ? and i.delivery_id = d.id)
       returning d.id, d.attempt_count, d.body, w.id as hook_id, ${hookToSendSql('w')}),
     item as (
       insert into webhook_recovery_items (recovery_id, delivery_id, attempt) select ?, id, attempt_count from claimed)
     select attempt_count as attempt, body, hook_id, ${hookToSendSql('claimed')} from claimed`,
    [deliveryId, statuses, recoveryId, recoveryId],
  );
  const r = rows[0];
  if (!r) return null;
  const { attempt, body, hook_id, ...hook } = r;
  return { attempt, body, hook: { id: hook_id, ...hook } };
}

export const findItem = async (
  db: Conn,
  recoveryId: string,
  deliveryId: string,
): Promise<{ attempt: number | null; outcome: string | null } | null> =>
  ((await db('webhook_recovery_items')
    .where({ recovery_id: recoveryId, delivery_id: deliveryId })
    .first('attempt', 'outcome')) as { attempt: number | null; outcome: string | null } | undefined) ?? null;

/** A matched delivery that no longer qualified when its turn came. */
export const skipItem = (db: Conn, recoveryId: string, deliveryId: string) =>
  db('webhook_recovery_items')
    .insert({ recovery_id: recoveryId, delivery_id: deliveryId, outcome: 'skipped' })
    .onConflict(['recovery_id', 'delivery_id'])
    .ignore();
