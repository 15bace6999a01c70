import type { Knex } from 'knex';
import { z } from 'zod';
import { conflict } from '../http/errors';
import { PROMPT_NAME, type PromptRef } from '../proxy/service-headers';

/**
 * Prompts and their immutable versions. A prompt is named per project; versions number from 1
 * upwards without gaps (the prompt row is locked while the next number is chosen, so concurrent
 * additions serialise). A version is addressable as `<name>@<version>`, `<name>@latest` or by id.
 */
export const promptNameSchema = z.string().regex(PROMPT_NAME, 'letters, digits, . _ - / (max 128), starting with a letter or digit');

const message = z.object({ role: z.string().min(1).max(64), content: z.unknown() }).passthrough();
export const versionInputSchema = z
  .object({
    /** The template: a string, or a list of chat messages. */
    template: z.union([z.string().min(1).max(1_000_000), z.array(message).min(1).max(1000)]),
    model: z.string().min(1).max(200).nullable().optional(),
    parameters: z.record(z.string(), z.unknown()).nullable().optional(),
    commit_message: z.string().max(2000).nullable().optional(),
  })
  .strict();
export type VersionInput = z.infer<typeof versionInputSchema>;

export const createPromptSchema = z
  .object({
    project_id: z.string().uuid(),
    name: promptNameSchema,
    description: z.string().max(5000).nullable().optional(),
    /** Optional first version, created with the prompt. */
    version: versionInputSchema.optional(),
  })
  .strict();

export interface PromptView {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  latest_version: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface VersionView {
  id: string;
  prompt_id: string;
  project_id: string;
  name: string;
  version: number;
  template: unknown;
  model: string | null;
  parameters: Record<string, unknown> | null;
  commit_message: string | null;
  created_by: string | null;
  created_at: Date;
}

const versionCols = (t = 'v') =>
  [`${t}.id`, `${t}.prompt_id`, `${t}.project_id`, 'p.name', `${t}.version`, `${t}.content`, `${t}.model`, `${t}.parameters`, `${t}.commit_message`, `${t}.created_by`, `${t}.created_at`] as const;

const toVersion = (r: Record<string, any>): VersionView => ({
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
  created_at: r.created_at,
});

const toPrompt = (r: Record<string, any>): PromptView => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description ?? null,
  latest_version: r.latest_version ?? null,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

function promptQuery(db: Knex | Knex.Transaction) {
  return db('prompts as p').select(
    'p.id',
    'p.project_id',
    'p.name',
    'p.description',
    'p.created_at',
    'p.updated_at',
    db.raw('(select max(version) from prompt_versions v where v.prompt_id = p.id)::int as latest_version'),
  );
}

export async function createPrompt(
  trx: Knex.Transaction,
  input: { orgId: string; projectId: string; name: string; description?: string | null; createdBy: string | null; version?: VersionInput },
): Promise<{ prompt: PromptView; version: VersionView | null }> {
  const inserted = await trx('prompts')
    .insert({ org_id: input.orgId, project_id: input.projectId, name: input.name, description: input.description ?? null, created_by: input.createdBy })
    .onConflict(['project_id', 'name'])
    .ignore()
    .returning('id');
  if (!inserted.length) throw conflict(`A prompt named "${input.name}" already exists in this project`, 'prompt_exists');
  const id = inserted[0].id as string;
  const version = input.version ? await addVersion(trx, id, input.version, input.createdBy) : null;
  const prompt = (await getPrompt(trx, [input.projectId], id))!;
  return { prompt, version };
}

export async function addVersion(trx: Knex.Transaction, promptId: string, v: VersionInput, createdBy: string | null): Promise<VersionView> {
  // Locking the prompt row serialises concurrent additions, so numbers are gap-free and unique.
  const prompt = await trx('prompts').select('id', 'project_id', 'name').where({ id: promptId }).forUpdate().first();
  const next = await trx('prompt_versions').where({ prompt_id: promptId }).max<{ max: number | null }>('version as max').first();
  const [row] = await trx('prompt_versions')
    .insert({
      prompt_id: promptId,
      project_id: prompt.project_id,
      version: (next?.max ?? 0) + 1,
      content: JSON.stringify(v.template),
      model: v.model ?? null,
      parameters: v.parameters ? JSON.stringify(v.parameters) : null,
      commit_message: v.commit_message ?? null,
      created_by: createdBy,
    })
    .returning(['id', 'prompt_id', 'project_id', 'version', 'content', 'model', 'parameters', 'commit_message', 'created_by', 'created_at']);
  await trx('prompts').where({ id: promptId }).update({ updated_at: trx.fn.now() });
  return toVersion({ ...row, name: prompt.name });
}

export async function listPrompts(db: Knex, projectIds: string[]): Promise<PromptView[]> {
  const rows = await promptQuery(db).whereIn('p.project_id', projectIds).orderBy([{ column: 'p.name' }, { column: 'p.id' }]);
  return rows.map(toPrompt);
}

export async function getPrompt(db: Knex | Knex.Transaction, projectIds: string[], id: string): Promise<PromptView | null> {
  const row = await promptQuery(db).whereIn('p.project_id', projectIds).andWhere('p.id', id).first();
  return row ? toPrompt(row) : null;
}

export async function listVersions(db: Knex, promptId: string): Promise<VersionView[]> {
  const rows = await db('prompt_versions as v')
    .join('prompts as p', 'p.id', 'v.prompt_id')
    .select(...versionCols())
    .where('v.prompt_id', promptId)
    .orderBy('v.version', 'desc');
  return rows.map(toVersion);
}

export async function deletePrompt(trx: Knex.Transaction, projectIds: string[], id: string): Promise<PromptView | null> {
  const before = await getPrompt(trx, projectIds, id);
  if (!before) return null;
  await trx('prompts').where({ id }).del();
  return before;
}

/**
 * Resolves `<name>@<version>`, `<name>@latest` (the highest version at this moment) or a version
 * id within the given projects; null when nothing matches.
 */
export async function resolvePromptRef(db: Knex, projectIds: string[], ref: PromptRef): Promise<VersionView | null> {
  const q = db('prompt_versions as v').join('prompts as p', 'p.id', 'v.prompt_id').select(...versionCols()).whereIn('v.project_id', projectIds);
  if (ref.kind === 'id') q.andWhere('v.id', ref.id);
  else {
    q.andWhere('p.name', ref.name);
    if (ref.version === 'latest') q.orderBy('v.version', 'desc');
    else q.andWhere('v.version', ref.version);
  }
  const row = await q.first();
  return row ? toVersion(row) : null;
}
