import type { Knex } from 'knex';

/**
 * The scan queue, filled in the transactions that store what is to be scanned (request-log and
 * ingest batches): a row stored is a row queued, and nothing is scanned on a response path. One
 * queue row per batch, so the writer pays one insert per 500 calls. The `security-scan` schedule
 * drains it (scan.ts).
 */
export interface ProjectRef {
  projectId: string;
  id: string;
}
export type QueueItem =
  /** Request ids with the created_at range [lo, hi) they lie in. */
  { source: 'request'; ids: string[]; lo: string; hi: string } | { source: 'span' | 'trace'; refs: ProjectRef[] };

/**
 * Queues a request-log batch: a statement over a CTE of its just-inserted rows (`id`, `created_at`) where `cond` holds.
 */
export const requestsQueueFromSql = (cte: string, cond: string) =>
  `insert into security_scan_queue (source, ids, lo, hi)
   select 'request', array_agg(id::text), min(created_at), max(created_at) + interval '1 millisecond'
     from ${cte} where ${cond} having count(*) > 0`;

export async function enqueueProjectRefs(
  trx: Knex.Transaction,
  source: 'span' | 'trace',
  refs: ProjectRef[],
): Promise<void> {
  if (!refs.length) return;
  await trx.raw('insert into security_scan_queue (source, project_ids, ids) values (?, ?::uuid[], ?::text[])', [
    source,
    refs.map((r) => r.projectId),
    refs.map((r) => r.id),
  ]);
}

/**
 * Takes up to `batches` queue rows, oldest first, in the caller's transaction (rows another scan holds are skipped).
 */
export async function takeScans(trx: Knex.Transaction, batches: number): Promise<QueueItem[]> {
  const { rows } = await trx.raw<{
    rows: {
      source: QueueItem['source'];
      project_ids: string[] | null;
      ids: string[];
      lo: Date | null;
      hi: Date | null;
    }[];
  }>(
    `delete from security_scan_queue
      where id in (select id from security_scan_queue order by id limit ? for update skip locked)
     returning source, project_ids, ids, lo, hi`,
    [batches],
  );
  return rows.map((r): QueueItem =>
    r.source === 'request'
      ? { source: 'request', ids: r.ids, lo: r.lo!.toISOString(), hi: r.hi!.toISOString() }
      : { source: r.source, refs: r.ids.map((id, i) => ({ projectId: r.project_ids![i]!, id })) },
  );
}
