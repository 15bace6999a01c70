import type { Knex } from 'knex';

/** SQL of the request log's partitions and retention (docs/retention.md). */
export interface Partition {
  name: string;
  /** Range of a monthly partition; null for the default one. */
  from: Date | null;
  to: Date | null;
}

export async function listPartitions(db: Knex): Promise<Partition[]> {
  const { rows } = await db.raw<{ rows: { name: string; bound: string }[] }>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'requests'::regclass order by 1`,
  );
  return rows.map((r) => {
    const m = /FROM \('([^']+)'\) TO \('([^']+)'\)/.exec(r.bound);
    return { name: r.name, from: m ? new Date(m[1]!) : null, to: m ? new Date(m[2]!) : null };
  });
}

/** Creates the month starting at `month` (moving its rows out of the default partition); false when it existed. */
export async function createPartition(db: Knex, month: Date): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { created: boolean }[] }>('select create_request_partition(?) as created', [
    month.toISOString(),
  ]);
  return rows[0]!.created;
}

/** Drops a monthly partition (its rows go with it, in one cheap catalog change). */
export async function dropPartition(db: Knex, name: string): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('alter table requests detach partition ??', [name]);
    await trx.raw('drop table ??', [name]);
  });
}

/** Rows older than the cutoff left in the default partition, and the rollups older than `rollupCutoff`. */
export async function deleteOlderThan(
  db: Knex,
  cutoff: string,
  rollupCutoff: string,
): Promise<{ rows: number; rollups: number; userDays: number }> {
  const rows = await db('requests_default').where('created_at', '<', cutoff).del();
  const rollups = await db('request_rollups').where('bucket', '<', rollupCutoff).del();
  const userDays = await db('end_user_days').where('day', '<', rollupCutoff.slice(0, 10)).del();
  return { rows, rollups, userDays };
}

export const organizations = (db: Knex): Promise<string[]> => db('organizations').pluck('id');

/**
 * Empties the bodies of one organization's rows in [from, to), at most `limit` of them (through
 * the (org_id, created_at) index); returns how many it emptied.
 */
export async function emptyBodies(db: Knex, orgId: string, from: string, to: string, limit: number): Promise<number> {
  const { rowCount } = await db.raw(
    `update requests set request_body = '', response_body = ''
      where (id, created_at) in (select id, created_at from requests
                                  where org_id = ? and created_at >= ? and created_at < ?
                                   and (request_body <> '' or response_body <> '') limit ?)`,
    [orgId, from, to, limit],
  );
  return rowCount ?? 0;
}

export async function getMark(db: Knex, key: string): Promise<string | null> {
  const row = await db('retention_marks').where({ key }).first();
  return row ? new Date(row.value).toISOString() : null;
}

export async function setMark(db: Knex, key: string, value: string): Promise<void> {
  await db.raw(
    'insert into retention_marks (key, value) values (?, ?) on conflict (key) do update set value = excluded.value',
    [key, value],
  );
}
