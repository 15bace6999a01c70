import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ItemInput } from './schemas';

/** SQL of datasets and their versioned items. Record types are the columns as pg returns them. */
interface DatasetRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}
/** A dataset with its latest version and its active item count (datasetsWithCounts). */
export interface DatasetCountsRecord extends DatasetRecord {
  latest_version: Date | null;
  items: number;
}
export interface ItemRecord {
  dataset_id: string;
  item_id: string;
  version: Date;
  input: unknown;
  expected_output: unknown;
  metadata: Record<string, unknown>;
  source_request_id: string | null;
  source_trace_id: string | null;
  source_span_id: string | null;
  split: string | null;
  status: 'active' | 'archived';
}
export interface VersionRecord {
  dataset_id: string;
  version: Date;
  change: string;
  added: number;
  updated: number;
  archived: number;
  created_by: string | null;
}

export async function datasetsWithCounts(db: Knex, projectIds: string[], id?: string): Promise<DatasetCountsRecord[]> {
  const q = db('datasets as d')
    .whereIn('d.project_id', projectIds)
    .select(
      'd.*',
      db.raw('(select max(version) from dataset_versions v where v.dataset_id = d.id) as latest_version'),
      db.raw(
        `(select count(*) from (select distinct on (item_id) status from dataset_item_history h
           where h.dataset_id = d.id order by item_id, version desc) x where status = 'active')::int as items`,
      ),
    );
  if (id) q.andWhere('d.id', id);
  return q.orderBy([{ column: 'd.name' }, { column: 'd.id' }]);
}

/** The items as they were at `version` (each item's newest row at or before it), by item id. */
export function itemsAt(
  db: Knex,
  datasetId: string,
  f: { version?: string | undefined; split?: string | undefined; status: string; after: string | null; limit: number },
): Knex.QueryBuilder<ItemRecord, ItemRecord[]> {
  const inner = db('dataset_item_history')
    .where({ dataset_id: datasetId })
    .distinctOn('item_id')
    .select('*')
    .orderBy([{ column: 'item_id' }, { column: 'version', order: 'desc' }]);
  if (f.version) inner.andWhere('version', '<=', f.version);
  const q = db.from<ItemRecord, ItemRecord[]>(inner.as('i'));
  if (f.status !== 'all') q.where('status', f.status);
  if (f.split) q.andWhere('split', f.split);
  if (f.after) q.andWhere('item_id', '>', f.after);
  return q.orderBy('item_id').limit(f.limit + 1);
}

type Stored = Record<string, unknown>;
/** JSON with object keys sorted: jsonb reorders keys, so equal values compare equal. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Stored)[k])}`)
          .join(',')}}`
      : JSON.stringify(v ?? null);
const same = (a: Stored, b: Stored) => canonical(a) === canonical(b);

/**
 * Writes a change of items as one new dataset version: an item identical to its current row is
 * left alone; the others get a history row stamped with the version. Returns the counts and the
 * version (null when nothing changed). Runs under a lock on the dataset, so versions are ordered.
 */
export async function writeItems(
  trx: Knex.Transaction,
  datasetId: string,
  items: ItemInput[],
  change: string,
  by: string | null,
) {
  await trx('datasets').where({ id: datasetId }).forUpdate().first('id');
  const ids = items.map((i) => i.id ?? randomUUID());
  const current = new Map<string, Stored>();
  for (const r of await trx('dataset_item_history')
    .where({ dataset_id: datasetId })
    .whereIn('item_id', ids)
    .distinctOn('item_id')
    .orderBy([{ column: 'item_id' }, { column: 'version', order: 'desc' }])
    .select('*')) {
    current.set(r.item_id, r);
  }
  const {
    rows: [{ v }],
  } = await trx.raw<{ rows: { v: Date }[] }>('select clock_timestamp() as v');
  const version = v.toISOString();
  let added = 0;
  let updated = 0;
  let archived = 0;
  const rows: Stored[] = [];
  const last = new Map<string, Stored>();
  items.forEach((i, n) => {
    const id = ids[n]!;
    const prev = last.get(id) ?? current.get(id);
    const next = {
      input: i.input ?? null,
      expected_output: i.expected_output ?? null,
      metadata: i.metadata ?? (prev?.metadata as object | undefined) ?? {},
      source_request_id: i.source_request_id ?? null,
      source_trace_id: i.source_trace_id ?? null,
      source_span_id: i.source_span_id ?? null,
      split: i.split ?? null,
      status: i.status ?? 'active',
    };
    if (
      prev &&
      same(next, {
        input: prev.input,
        expected_output: prev.expected_output,
        metadata: prev.metadata,
        source_request_id: prev.source_request_id,
        source_trace_id: prev.source_trace_id,
        source_span_id: prev.source_span_id,
        split: prev.split,
        status: prev.status,
      })
    )
      return;
    if (!prev) added++;
    else if (next.status === 'archived' && prev.status !== 'archived') archived++;
    else updated++;
    const row = { dataset_id: datasetId, item_id: id, version, ...next };
    last.set(id, row);
    rows.push(row);
  });
  // A later entry for the same id in one change wins (one row per item and version).
  const unique = [...new Map(rows.map((r) => [r.item_id as string, r])).values()].map((r) => ({
    ...r,
    input: JSON.stringify(r.input),
    expected_output: JSON.stringify(r.expected_output),
    metadata: JSON.stringify(r.metadata),
  }));
  if (unique.length) {
    for (let i = 0; i < unique.length; i += 500) await trx('dataset_item_history').insert(unique.slice(i, i + 500));
    await trx('dataset_versions').insert({
      dataset_id: datasetId,
      version,
      change,
      added,
      updated,
      archived,
      created_by: by,
    });
    await trx('datasets').where({ id: datasetId }).update({ updated_at: trx.fn.now() });
  }
  return {
    version: unique.length ? version : null,
    added,
    updated,
    unchanged: items.length - added - updated - archived,
    archived,
  };
}

export const versionsOf = (db: Knex, datasetId: string) =>
  db<VersionRecord>('dataset_versions').where({ dataset_id: datasetId }).orderBy('version', 'desc').limit(1000);
