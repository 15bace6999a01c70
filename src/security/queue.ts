import type { Knex } from 'knex';

/**
 * The scan queue, filled in the transactions that store what is to be scanned (request-log and
 * ingest batches): a row stored is a row queued, and nothing is scanned on a response path. The
 * `security-scan` schedule drains it (scan.ts).
 */
export interface ScanRef {
  source: 'request' | 'span' | 'trace';
  project_id: string;
  ref: string;
  /** The request's created_at (its partition key); the write time for spans and traces. */
  at: string;
}

export async function enqueueScans(trx: Knex.Transaction, refs: ScanRef[]): Promise<void> {
  if (!refs.length) return;
  await trx.raw(
    `insert into security_scan_queue (source, project_id, ref, at)
     select source, project_id, ref, at from json_to_recordset(?::json) as x(source text, project_id uuid, ref text, at timestamptz)
     on conflict (source, project_id, ref) do nothing`,
    [JSON.stringify(refs)],
  );
}

/** Takes up to `limit` queued refs, oldest first, in the caller's transaction (skipped if another scan holds them). */
export async function takeScans(trx: Knex.Transaction, limit: number): Promise<ScanRef[]> {
  const { rows } = await trx.raw<{ rows: (ScanRef & { at: Date })[] }>(
    `delete from security_scan_queue q using (
       select source, project_id, ref from security_scan_queue order by enqueued_at limit ? for update skip locked) x
     where q.source = x.source and q.project_id = x.project_id and q.ref = x.ref
     returning q.source, q.project_id, q.ref, q.at`,
    [limit],
  );
  return rows.map((r) => ({ ...r, at: r.at.toISOString() }));
}
