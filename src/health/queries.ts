import type { Knex } from 'knex';

/** Undispatched outbox events (the dispatcher deletes what it has handed to Temporal) and the age of the oldest. */
export async function outboxStats(db: Knex): Promise<{ backlog: number; lagSeconds: number }> {
  const { rows } = await db.raw<{ rows: { backlog: string; lag: number | null }[] }>(
    'select count(*) as backlog, extract(epoch from now() - min(created_at))::float8 as lag from event_outbox',
  );
  return { backlog: Number(rows[0]?.backlog ?? 0), lagSeconds: Math.max(0, rows[0]?.lag ?? 0) };
}
