import type { Knex } from 'knex';
import { subscribedWebhookSql } from './subscribers';

type Conn = Knex | Knex.Transaction;

/** NOTIFY channel the dispatcher LISTENs on; the notification is delivered when the writer commits. */
export const OUTBOX_CHANNEL = 'event_outbox';

export async function insertOutboxRows(
  db: Conn,
  rows: { org_id: string; kind: string; payload: Record<string, unknown> }[],
): Promise<void> {
  await db.raw(
    `with ins as (
       insert into event_outbox (org_id, kind, payload)
       select e.org_id, e.kind, e.payload
         from json_to_recordset(?::json) as e(org_id uuid, kind text, payload json)
        where exists (select 1 from webhooks w where w.org_id = e.org_id and ${subscribedWebhookSql('w', 'e.kind')})
       returning 1)
     select pg_notify(?, '') from (select 1 from ins limit 1) as any_row`,
    [JSON.stringify(rows), OUTBOX_CHANNEL],
  );
}

/**
 * {@link insertOutboxRows} as a CTE body for a writer that stores rows and their events in one
 * statement: events given as JSON `[{id, org_id, kind, payload}]` in `param`, kept only for the ids
 * in `cte` (the rows actually inserted) and for organizations with a subscribed webhook. The
 * caller notifies with {@link notifySql} when it returned rows.
 */
export const outboxFromSql = (param: string, cte: string) =>
  `insert into event_outbox (org_id, kind, payload)
   select e.org_id, e.kind, e.payload
     from json_to_recordset(${param}) as e(id uuid, org_id uuid, kind text, payload json)
     join ${cte} f on f.id = e.id
    where exists (select 1 from webhooks w where w.org_id = e.org_id and ${subscribedWebhookSql('w', 'e.kind')})
   returning 1`;

/** A scalar that wakes the dispatcher (on commit) when the CTE `ins` has rows. */
export const notifySql = (ins: string) =>
  `(select 1 from (select pg_notify('${OUTBOX_CHANNEL}', '') from ${ins} limit 1) n)`;
