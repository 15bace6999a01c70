import type { Knex } from 'knex';
import { insertOutboxRows } from './queries';

export { notifySql, OUTBOX_CHANNEL, outboxFromSql } from './queries';

/** Event kinds a webhook can subscribe to (the `test` ping is not an event kind). */
export const eventKinds = ['request.created', 'trace.completed', 'alert.triggered'] as const;
export type EventKind = (typeof eventKinds)[number];

export interface OutboxEvent {
  orgId: string;
  kind: EventKind;
  /** The event's extra top-level body fields, e.g. `{ request: {...} }`. */
  object: Record<string, unknown>;
}

const isKind = (k: unknown): k is EventKind => (eventKinds as readonly string[]).includes(k as string);

function check(events: readonly OutboxEvent[]): void {
  for (const e of events) {
    if (!isKind(e.kind)) throw new Error(`emitEvent: unknown event kind ${JSON.stringify(e.kind)}`);
    if (typeof e.orgId !== 'string' || e.orgId.length === 0) throw new Error('emitEvent: orgId is required');
    if (e.object === null || typeof e.object !== 'object' || Array.isArray(e.object))
      throw new Error('emitEvent: object must be a plain object');
  }
}

/** Events tied to the rows they are about (`id`), checked like {@link emitEvents}, as `outboxFromSql` reads them. */
export function outboxJson(events: readonly (OutboxEvent & { id: string })[]): string {
  check(events);
  return JSON.stringify(events.map((e) => ({ id: e.id, org_id: e.orgId, kind: e.kind, payload: e.object })));
}

/**
 * Writes outbox rows in the caller's transaction (pass the transaction as `db`) and wakes the
 * dispatcher on commit. A row is written only when the organization has an active webhook
 * subscribed to the kind at that moment, so events nobody listens to cost one indexed lookup and
 * no write. One statement, one round trip, whatever the batch size.
 */
export async function emitEvents(db: Knex | Knex.Transaction, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  check(events);
  await insertOutboxRows(
    db,
    events.map((e) => ({ org_id: e.orgId, kind: e.kind, payload: e.object })),
  );
}

/** Writes one outbox row in the caller's transaction; see {@link emitEvents}. */
export function emitEvent(
  db: Knex | Knex.Transaction,
  orgId: string,
  kind: EventKind,
  object: Record<string, unknown>,
): Promise<void> {
  return emitEvents(db, [{ orgId, kind, object }]);
}
