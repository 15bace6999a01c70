import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { badRequest, conflict, notFound } from '../http/errors';
import { parsePromptRef, type PromptRef } from './ref';
import * as q from './queries';
import type { PromptView, VersionInput, VersionView } from './schemas';

/**
 * Prompts and their immutable versions. A prompt is named per project; versions number from 1
 * upwards without gaps (the prompt row is locked while the next number is chosen, so concurrent
 * additions serialise). A version is addressable as `<name>@<version>`, `<name>@latest` or by id.
 */

/** The projects a caller may see (auth.projectScope). */
export interface Scope {
  orgId: string;
  projectIds: string[];
}

const userIdOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);
const versionNotFound = () => notFound('Prompt version', 'prompt_version_not_found');

export const listPrompts = (db: Knex, projectIds: string[]) => q.listPromptRows(db, projectIds);

/** A prompt of these projects or 404. */
async function requirePrompt(db: Knex | Knex.Transaction, projectIds: string[], id: string): Promise<PromptView> {
  const prompt = await q.findPrompt(db, projectIds, id);
  if (!prompt) throw notFound('Prompt');
  return prompt;
}

export async function promptWithVersions(db: Knex, projectIds: string[], id: string) {
  const prompt = await requirePrompt(db, projectIds, id);
  return { ...prompt, versions: await q.listVersionRows(db, prompt.id) };
}

async function addVersionLocked(
  trx: Knex.Transaction,
  promptId: string,
  v: VersionInput,
  createdBy: string | null,
): Promise<VersionView> {
  const prompt = await q.lockPrompt(trx, promptId);
  await q.releaseLabels(trx, promptId, v.labels ?? [], null);
  return q.insertVersion(trx, prompt, await q.nextVersionNumber(trx, promptId), v, createdBy);
}

/** Sets a version's labels (each moved off the version that held it), audited. */
export async function setLabels(
  db: Knex,
  actor: Principal,
  scope: Scope,
  promptId: string,
  selector: string,
  labels: string[],
) {
  const prompt = await requirePrompt(db, scope.projectIds, promptId);
  return db.transaction(async (trx) => {
    await q.lockPrompt(trx, prompt.id);
    const v = await resolvePromptRef(trx as unknown as Knex, [prompt.project_id], {
      kind: 'name',
      name: prompt.name,
      version: selector === 'latest' ? 'latest' : Number(selector),
    });
    if (!v) throw versionNotFound();
    const unique = [...new Set(labels)];
    await q.releaseLabels(trx, prompt.id, unique, v.id);
    await q.setVersionLabels(trx, v.id, unique);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'prompt_version.labels_set',
      resourceType: 'prompt_version',
      resourceId: v.id,
      before: { labels: v.labels },
      after: { labels: unique },
    });
    return { ...v, labels: unique };
  });
}

/** Creates a prompt (409 when the name is taken in the project), with an optional first version. */
export function createPrompt(
  db: Knex,
  actor: Principal,
  scope: Scope,
  input: { name: string; description?: string | null; version?: VersionInput },
) {
  return db.transaction(async (trx) => {
    const projectId = scope.projectIds[0]!;
    const id = await q.insertPrompt(trx, {
      org_id: scope.orgId,
      project_id: projectId,
      name: input.name,
      description: input.description ?? null,
      created_by: userIdOf(actor),
    });
    if (!id) throw conflict(`A prompt named "${input.name}" already exists in this project`, 'prompt_exists');
    const version = input.version ? await addVersionLocked(trx, id, input.version, userIdOf(actor)) : null;
    const prompt = await requirePrompt(trx, [projectId], id);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'prompt.created',
      resourceType: 'prompt',
      resourceId: id,
      after: { prompt, version },
    });
    return { ...prompt, versions: version ? [version] : [] };
  });
}

/** Adds the next immutable version of a prompt of these projects. */
export async function addVersion(db: Knex, actor: Principal, scope: Scope, promptId: string, input: VersionInput) {
  const prompt = await requirePrompt(db, scope.projectIds, promptId);
  return db.transaction(async (trx) => {
    const v = await addVersionLocked(trx, prompt.id, input, userIdOf(actor));
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'prompt_version.created',
      resourceType: 'prompt_version',
      resourceId: v.id,
      after: v,
    });
    return v;
  });
}

/** Version `n` or `latest` of a prompt of these projects. */
export async function promptVersion(db: Knex, projectIds: string[], promptId: string, selector: string) {
  const prompt = await requirePrompt(db, projectIds, promptId);
  const v = await resolvePromptRef(db, [prompt.project_id], {
    kind: 'name',
    name: prompt.name,
    version: selector === 'latest' ? 'latest' : Number(selector),
  });
  if (!v) throw versionNotFound();
  return v;
}

/** Deletes a prompt and its versions (logged requests keep their rows; their link is cleared). */
export async function deletePrompt(db: Knex, actor: Principal, scope: Scope, id: string) {
  await db.transaction(async (trx) => {
    const before = await requirePrompt(trx, scope.projectIds, id);
    await q.deletePromptRow(trx, id);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'prompt.deleted',
      resourceType: 'prompt',
      resourceId: id,
      before,
    });
  });
}

/** The version a `ref` query names; prompt names are per project, so a name needs one project in scope. */
export async function resolveRef(db: Knex, projectIds: string[], raw: string) {
  const ref = parsePromptRef(raw);
  if (!ref)
    throw badRequest('ref must be <name>@<version>, <name>@latest or a prompt-version UUID', 'invalid_prompt_version');
  if (ref.kind === 'name' && projectIds.length > 1) {
    throw badRequest('Prompt names are per project: pass project_id', 'project_required', { field: 'project_id' });
  }
  const v = await resolvePromptRef(db, projectIds, ref);
  if (!v) throw versionNotFound();
  return v;
}

/**
 * Resolves `<name>@<version>`, `<name>@latest` (the highest version at this moment) or a version
 * id within the given projects; null when nothing matches. The proxy calls this on every request
 * that sends x-service-prompt-version.
 */
export const resolvePromptRef = (db: Knex, projectIds: string[], ref: PromptRef): Promise<VersionView | null> =>
  q.findVersionByRef(db, projectIds, ref);
