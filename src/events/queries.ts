import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { buildBody } from '../webhooks/payload';
import { deliveryWorkflowId } from '../webhooks/policy';
import { subscribedWebhookSql } from '../webhooks/queries';

type Conn = Knex | Knex.Transaction;

/** NOTIFY channel the dispatcher LISTENs on; the notification is delivered when the writer commits. */
export const OUTBOX_CHANNEL = 'event_outbox';

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
export async function insertOutboxRows(db: Conn, rows: { org_id: string; kind: string; payload: Record<string, unknown> }[]): Promise<void> {
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
 * Moves up to `limit` outbox events into delivery records, one per active subscribed webhook, in
 * the caller's transaction: the events are locked FOR UPDATE SKIP LOCKED (dispatchers drain side by
 * side), the records inserted, the events deleted. Returns the records created.
 */
export async function fanOutOutbox(trx: Knex.Transaction, limit: number): Promise<DeliveryToDispatch[]> {
  const { rows: events } = await trx.raw<{ rows: { id: string; org_id: string; kind: string; payload: Record<string, unknown> }[] }>(
    'select id, org_id, kind, payload from event_outbox order by id limit ? for update skip locked',
    [limit],
  );
  if (events.length === 0) return [];
  const { rows: pairs } = await trx.raw<{ rows: { event_id: string; webhook_id: string; url: string; org_name: string }[] }>(
    `select e.id as event_id, w.id as webhook_id, w.url, o.name as org_name
       from event_outbox e join webhooks w on w.org_id = e.org_id and ${subscribedWebhookSql('w', 'e.kind')}
       join organizations o on o.id = e.org_id
      where e.id = any(?::bigint[])
      order by e.id, w.created_at, w.id`,
    [events.map((e) => e.id)],
  );
  const byId = new Map(events.map((e) => [String(e.id), e]));
  const dispatchedAt = new Date();
  const records = pairs.map((p) => {
    const e = byId.get(String(p.event_id))!;
    const id = randomUUID();
    return {
      id,
      webhook_id: p.webhook_id,
      org_id: e.org_id,
      event_type: e.kind,
      url: p.url,
      body: buildBody(e.kind, p.webhook_id, dispatchedAt, withOrganizationName(e.payload, p.org_name)),
      workflow_id: deliveryWorkflowId(id),
    };
  });
  // Chunked to stay under PostgreSQL's bind-parameter limit for big fan-outs.
  for (let i = 0; i < records.length; i += 1000) {
    await trx('webhook_deliveries').insert(records.slice(i, i + 1000).map(({ url: _u, ...d }) => ({ ...d, status: 'pending', created_at: dispatchedAt })));
  }
  await trx.raw('delete from event_outbox where id = any(?::bigint[])', [events.map((e) => e.id)]);
  return records.map(({ id, webhook_id, org_id, event_type, url }) => ({ id, webhook_id, org_id, event_type, url }));
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

/** Records whose workflow start failed (Temporal down) or was lost in a crash; very fresh ones are left to their dispatcher. */
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
  db.raw('update webhook_deliveries set workflow_started_at = now() where id = any(?::uuid[]) and workflow_started_at is null', [ids]);
