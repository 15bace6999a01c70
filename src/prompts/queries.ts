import type { Knex } from 'knex';
import { isoText } from '../db/convert';
import type { PromptRef } from './ref';
import { templateVariables } from './variables';
import type { PromptView, VersionInput, VersionView } from './schemas';

type Db = Knex | Knex.Transaction;

const versionCols = (t = 'v') =>
  [
    `${t}.id`,
    `${t}.prompt_id`,
    `${t}.project_id`,
    'p.name',
    `${t}.version`,
    `${t}.content`,
    `${t}.model`,
    `${t}.parameters`,
    `${t}.commit_message`,
    `${t}.created_by`,
    `${t}.created_at`,
    `${t}.labels`,
  ] as const;

/** A prompt_versions row with its prompt's name, as pg returns it (content and parameters are jsonb). */
interface VersionRecord {
  id: string;
  prompt_id: string;
  project_id: string;
  name: string;
  version: number;
  content: unknown;
  model: string | null;
  parameters: Record<string, unknown> | null;
  commit_message: string | null;
  created_by: string | null;
  created_at: Date;
  labels: string[] | null;
}
/** A prompts row with its latest version number (promptQuery). */
interface PromptRecord {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  latest_version: number | null;
  created_at: Date;
  updated_at: Date;
}

// The views are derived here only; `?? null` keeps a missing column null, as before the rows were typed.
const toVersion = (r: VersionRecord): VersionView => ({
  id: r.id,
  prompt_id: r.prompt_id,
  project_id: r.project_id,
  name: r.name,
  version: r.version,
  template: r.content,
  model: r.model ?? null,
  parameters: r.parameters ?? null,
  commit_message: r.commit_message ?? null,
  created_by: r.created_by ?? null,
  created_at: isoText(r.created_at),
  labels: r.labels ?? [],
  variables: templateVariables(r.content),
});

const toPrompt = (r: PromptRecord): PromptView => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description ?? null,
  latest_version: r.latest_version ?? null,
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
});

function promptQuery(db: Db) {
  return db<PromptRecord>('prompts as p').select(
    'p.id',
    'p.project_id',
    'p.name',
    'p.description',
    'p.created_at',
    'p.updated_at',
    db.raw('(select max(version) from prompt_versions v where v.prompt_id = p.id)::int as latest_version'),
  );
}

/** The new prompt's id, or null when the name is taken in the project. */
export async function insertPrompt(
  trx: Knex.Transaction,
  row: { org_id: string; project_id: string; name: string; description: string | null; created_by: string | null },
): Promise<string | null> {
  const inserted = await trx('prompts').insert(row).onConflict(['project_id', 'name']).ignore().returning('id');
  return inserted.length ? (inserted[0].id as string) : null;
}

/** Locks the prompt row, so concurrent additions serialise and version numbers stay gap-free. */
export const lockPrompt = (trx: Knex.Transaction, promptId: string) =>
  trx('prompts').select('id', 'project_id', 'name').where({ id: promptId }).forUpdate().first();

export async function nextVersionNumber(trx: Knex.Transaction, promptId: string): Promise<number> {
  const row = await trx('prompt_versions')
    .where({ prompt_id: promptId })
    .max<{ max: number | null }>('version as max')
    .first();
  return (row?.max ?? 0) + 1;
}

export async function insertVersion(
  trx: Knex.Transaction,
  prompt: { id: string; project_id: string; name: string },
  version: number,
  v: VersionInput,
  createdBy: string | null,
): Promise<VersionView> {
  const [row] = await trx('prompt_versions')
    .insert({
      prompt_id: prompt.id,
      project_id: prompt.project_id,
      version,
      content: JSON.stringify(v.template),
      model: v.model ?? null,
      parameters: v.parameters ? JSON.stringify(v.parameters) : null,
      commit_message: v.commit_message ?? null,
      created_by: createdBy,
      labels: v.labels ?? [],
    })
    .returning([
      'id',
      'prompt_id',
      'project_id',
      'version',
      'content',
      'model',
      'parameters',
      'commit_message',
      'created_by',
      'created_at',
      'labels',
    ]);
  await trx('prompts').where({ id: prompt.id }).update({ updated_at: trx.fn.now() });
  return toVersion({ ...row, name: prompt.name });
}

export async function listPromptRows(db: Knex, projectIds: string[]): Promise<PromptView[]> {
  const rows = await promptQuery(db)
    .whereIn('p.project_id', projectIds)
    .orderBy([{ column: 'p.name' }, { column: 'p.id' }]);
  return rows.map(toPrompt);
}

export async function findPrompt(db: Db, projectIds: string[], id: string): Promise<PromptView | null> {
  const row = await promptQuery(db).whereIn('p.project_id', projectIds).andWhere('p.id', id).first();
  return row ? toPrompt(row) : null;
}

export async function listVersionRows(db: Knex, promptId: string): Promise<VersionView[]> {
  const rows = await db('prompt_versions as v')
    .join('prompts as p', 'p.id', 'v.prompt_id')
    .select(...versionCols())
    .where('v.prompt_id', promptId)
    .orderBy('v.version', 'desc');
  return rows.map(toVersion);
}

export const deletePromptRow = (trx: Knex.Transaction, id: string) => trx('prompts').where({ id }).del();

/** The version a reference names within these projects (`latest`: the highest at this moment). */
export async function findVersionByRef(db: Knex, projectIds: string[], ref: PromptRef): Promise<VersionView | null> {
  const q = db('prompt_versions as v')
    .join('prompts as p', 'p.id', 'v.prompt_id')
    .select(...versionCols())
    .whereIn('v.project_id', projectIds);
  if (ref.kind === 'id') q.andWhere('v.id', ref.id);
  else {
    q.andWhere('p.name', ref.name);
    if (ref.version === 'latest') q.orderBy('v.version', 'desc');
    else if (typeof ref.version === 'object') q.andWhereRaw('? = any(v.labels)', [ref.version.label]);
    else q.andWhere('v.version', ref.version);
  }
  const row = await q.first();
  return row ? toVersion(row) : null;
}

/** Takes `labels` off every other version of the prompt (a label names one version at a time). */
export async function releaseLabels(
  trx: Knex.Transaction,
  promptId: string,
  labels: string[],
  keepVersionId: string | null,
): Promise<void> {
  if (!labels.length) return;
  await trx.raw(
    `update prompt_versions set labels = array(select l from unnest(labels) l where l <> all(?::text[]))
      where prompt_id = ? and labels && ?::text[] and id is distinct from ?`,
    [labels, promptId, labels, keepVersionId],
  );
}

export async function setVersionLabels(trx: Knex.Transaction, versionId: string, labels: string[]) {
  await trx('prompt_versions').where({ id: versionId }).update({ labels });
}
