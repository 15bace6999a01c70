import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { subscribedWebhookSql } from '../../events/subscribers';
import { buildBody } from '../payload';
import { deliveryWorkflowId } from '../policy';

type Conn = Knex | Knex.Transaction;

/** A delivery record waiting for its workflow (the fields the start needs). */
export interface DeliveryToDispatch {
  id: string;
  webhook_id: string;
  org_id: string;
  event_type: string;
  url: string;
}

/**
 * Inserts outbox rows for the events some active webhook of the organization subscribes to (the
 * others cost one indexed lookup and no write), and notifies the dispatcher when any was written.
 */
/**
 * Moves up to `limit` outbox events into delivery records, one per active subscribed webhook, in
 * two statements and no explicit transaction (four round trips fewer than BEGIN, lock, read,
 * insert, delete, COMMIT): the first reads the oldest events with their subscribed webhooks; the
 * second deletes those events and inserts the records of the events it deleted, atomically (one
 * statement). A dispatcher beside it that read the same events deletes none of them again (the
 * delete waits on the first one's row locks, then finds the rows gone), so it inserts nothing
 * twice; a crash between the statements leaves the events in the outbox. Returns the records
 * created. `db` may be a transaction.
 */
export async function fanOutOutbox(db: Conn, limit: number): Promise<DeliveryToDispatch[]> {
  const { rows } = await db.raw<{
    rows: {
      event_id: string;
      org_id: string;
      kind: string;
      payload: Record<string, unknown>;
      webhook_id: string | null;
      url: string | null;
      org_name: string | null;
    }[];
  }>(
    `select e.id as event_id, e.org_id, e.kind, e.payload, w.id as webhook_id, w.url, o.name as org_name
       from (select id, org_id, kind, payload from event_outbox order by id limit ?) e
       left join webhooks w on w.org_id = e.org_id and ${subscribedWebhookSql('w', 'e.kind')}
       left join organizations o on o.id = e.org_id and w.id is not null
      order by e.id, w.created_at, w.id`,
    [limit],
  );
  if (rows.length === 0) return [];
  const eventIds = [...new Set(rows.map((r) => String(r.event_id)))];
  const dispatchedAt = new Date();
  const records = rows
    .filter((r) => r.webhook_id !== null)
    .map((r) => {
      const id = randomUUID();
      return {
        event_id: String(r.event_id),
        id,
        webhook_id: r.webhook_id!,
        org_id: r.org_id,
        event_type: r.kind,
        url: r.url!,
        body: buildBody(r.kind, r.webhook_id!, dispatchedAt, withOrganizationName(r.payload, r.org_name ?? '')),
        workflow_id: deliveryWorkflowId(id),
      };
    });
  const { rows: inserted } = await db.raw<{ rows: { id: string }[] }>(
    `with del as (delete from event_outbox where id = any(?::bigint[]) returning id),
     ins as (
       insert into webhook_deliveries (id, webhook_id, org_id, event_type, body, workflow_id, status, created_at)
       select r.id, r.webhook_id, r.org_id, r.event_type, r.body, r.workflow_id, 'pending', ?::timestamptz
         from json_to_recordset(?::json)
              as r(event_id bigint, id uuid, webhook_id uuid, org_id uuid, event_type text, body text, workflow_id text)
        where r.event_id in (select id from del)
       returning id)
     select id from ins`,
    [eventIds, dispatchedAt.toISOString(), JSON.stringify(records.map(({ url: _u, ...d }) => d))],
  );
  const created = new Set(inserted.map((r) => r.id));
  return records
    .filter((r) => created.has(r.id))
    .map(({ id, webhook_id, org_id, event_type, url }) => ({ id, webhook_id, org_id, event_type, url }));
}

/**
 * An event object carrying `organization` (alert.triggered) gets the organization's name as it is
 * when the delivery is built: a renamed organization shows its current name, and the body is then
 * stored, so every retry of that delivery sends the same bytes and signature.
 */
function withOrganizationName(payload: Record<string, unknown>, name: string): Record<string, unknown> {
  const org = payload.organization;
  if (!org || typeof org !== 'object' || Array.isArray(org)) return payload;
  return { ...payload, organization: { ...(org as Record<string, unknown>), name } };
}

/**
 * Records whose workflow start failed (Temporal down) or was lost in a crash; very fresh ones are left to their
 * dispatcher.
 */
export const unstartedDeliveries = (db: Conn, limit: number): Promise<DeliveryToDispatch[]> =>
  db('webhook_deliveries as d')
    .join('webhooks as w', 'w.id', 'd.webhook_id')
    .select('d.id', 'd.webhook_id', 'd.org_id', 'd.event_type', 'w.url')
    .whereNull('d.workflow_started_at')
    .whereNotNull('d.workflow_id')
    .andWhere('d.created_at', '<', db.raw("now() - interval '2 seconds'"))
    .orderBy('d.created_at')
    .limit(limit);

export const markWorkflowsStarted = (db: Conn, ids: string[]) =>
  db.raw(
    'update webhook_deliveries set workflow_started_at = now() ' +
      'where id = any(?::uuid[]) and workflow_started_at is null',
    [ids],
  );
