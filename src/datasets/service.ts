import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import { type Principal, actorLabel } from '../auth/principal';
import { conflict, notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { oneProject } from '../score-configs/service';
import { parseUpload, productionItems } from './import';
import * as q from './queries';
import type { ItemInput, ItemView, ListItemsParams } from './schemas';
import { isoOrNull, isoText, jsonOr } from '../db/convert';
import type { Scope } from '../http/route';

/** What other features read of this one's data (they never import its queries). */
export { itemsAt } from './queries';

/** Datasets: versioned test data from production, uploads and the API (docs/datasets.md). */
const userIdOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);

// Key order is the response's: views are derived here only.
const toView = (r: q.DatasetCountsRecord) => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description ?? null,
  metadata: jsonOr(r.metadata, {}),
  latest_version: isoOrNull(r.latest_version),
  items: Number(r.items ?? 0),
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
});
const itemView = (r: q.ItemRecord): ItemView => ({
  id: r.item_id,
  dataset_id: r.dataset_id,
  version: isoText(r.version),
  input: r.input ?? null,
  expected_output: r.expected_output ?? null,
  metadata: jsonOr(r.metadata, {}),
  source_request_id: r.source_request_id ?? null,
  source_trace_id: r.source_trace_id ?? null,
  source_span_id: r.source_span_id ?? null,
  split: r.split ?? null,
  status: r.status,
});
const versionView = (v: q.VersionRecord) => ({
  version: isoText(v.version),
  change: v.change,
  added: v.added,
  updated: v.updated,
  archived: v.archived,
  created_by: v.created_by ?? null,
});

export async function requireDataset(db: Knex, projectIds: string[], id: string) {
  const [row] = await q.datasetsWithCounts(db, projectIds, id);
  if (!row) throw notFound('Dataset');
  return toView(row);
}
export const listDatasets = async (db: Knex, projectIds: string[]) =>
  (await q.datasetsWithCounts(db, projectIds)).map(toView);
const taken = (name: string) => conflict(`A dataset named "${name}" already exists in this project`, 'dataset_exists');

export async function createDataset(
  db: Knex,
  actor: Principal,
  scope: Scope,
  input: { name: string; description?: string | null; metadata?: Record<string, unknown> },
) {
  const projectId = oneProject(scope);
  return db.transaction(async (trx) => {
    const [row] = await trx('datasets')
      .insert({
        org_id: scope.orgId,
        project_id: projectId,
        name: input.name,
        description: input.description ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
        created_by: userIdOf(actor),
      })
      .onConflict(['project_id', 'name'])
      .ignore()
      .returning('id');
    if (!row) throw taken(input.name);
    const view = await requireDataset(trx as unknown as Knex, [projectId], row.id);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'dataset.created',
      resourceType: 'dataset',
      resourceId: row.id,
      after: view,
    });
    return view;
  });
}

export async function updateDataset(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  input: {
    name?: string | undefined;
    description?: string | null | undefined;
    metadata?: Record<string, unknown> | undefined;
  },
) {
  const before = await requireDataset(db, projectIds, id);
  return db.transaction(async (trx) => {
    const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
    await trx('datasets')
      .where({ id })
      .update(patch)
      .catch((err: { code?: string }) => {
        throw err.code === '23505' ? taken(String(input.name)) : err;
      });
    const after = await requireDataset(trx as unknown as Knex, projectIds, id);
    const { org_id } = await trx('datasets').where({ id }).first('org_id');
    await recordAudit(trx, {
      orgId: org_id,
      actor,
      action: 'dataset.updated',
      resourceType: 'dataset',
      resourceId: id,
      before,
      after,
    });
    return after;
  });
}

export async function deleteDataset(db: Knex, actor: Principal, projectIds: string[], id: string) {
  const before = await requireDataset(db, projectIds, id);
  await db.transaction(async (trx) => {
    const { org_id } = await trx('datasets').where({ id }).first('org_id');
    await trx('datasets').where({ id }).del();
    await recordAudit(trx, {
      orgId: org_id,
      actor,
      action: 'dataset.deleted',
      resourceType: 'dataset',
      resourceId: id,
      before,
    });
  });
  return { id, deleted: true as const };
}

/** Adds or updates items as one new version; returns what changed. */
async function change(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  items: ItemInput[],
  what: string,
  errors: { row: number; error: string }[] = [],
) {
  await requireDataset(db, projectIds, id);
  const r = items.length
    ? await db.transaction((trx) => q.writeItems(trx, id, items, what, actorLabel(actor)))
    : { version: null, added: 0, updated: 0, unchanged: 0, archived: 0 };
  return { version: r.version, added: r.added, updated: r.updated + r.archived, unchanged: r.unchanged, errors };
}

export const addItems = (db: Knex, actor: Principal, projectIds: string[], id: string, items: ItemInput[]) =>
  change(db, actor, projectIds, id, items, 'api');

export async function uploadItems(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  text: string,
  format: 'csv' | 'jsonl',
  split?: string,
) {
  const { items, errors } = parseUpload(text, format, split);
  return change(db, actor, projectIds, id, items, `upload:${format}`, errors);
}

export async function addFromProduction(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  body: { source: Parameters<typeof productionItems>[2]; sample: 'newest' | 'random'; split?: string | undefined },
) {
  const ds = await requireDataset(db, projectIds, id);
  const items = await productionItems(db, ds.project_id, body.source, body.sample, body.split);
  return change(db, actor, projectIds, id, items, `production:${body.source.kind}:${body.sample}`);
}

export async function archiveItem(db: Knex, actor: Principal, projectIds: string[], id: string, itemId: string) {
  await requireDataset(db, projectIds, id);
  const [current] = await q.itemsAt(db, id, { status: 'all', after: null, limit: 1 }).where('item_id', itemId);
  if (!current) throw notFound('Dataset item');
  return change(
    db,
    actor,
    projectIds,
    id,
    [{ ...itemView(current), id: itemId, status: 'archived' } as ItemInput],
    'archive',
  );
}

const cursor = cursorCodec('text');
export async function listItems(db: Knex, projectIds: string[], id: string, p: ListItemsParams) {
  await requireDataset(db, projectIds, id);
  const after = p.cursor ? (cursor.decode(p.cursor) as [string])[0] : null;
  const rows = await q.itemsAt(db, id, { version: p.version, split: p.split, status: p.status, after, limit: p.limit });
  return pageOf(rows, p.limit, cursor, (r) => [r.item_id], itemView);
}

export async function versions(db: Knex, projectIds: string[], id: string) {
  await requireDataset(db, projectIds, id);
  return (await q.versionsOf(db, id)).map(versionView);
}
