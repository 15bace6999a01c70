import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

/** What lists and reads show of an API key: never the key or its hash. */
const API_KEY_VIEW = ['id', 'org_id', 'project_id', 'name', 'scope', 'prefix', 'last4', 'is_active', 'created_at', 'updated_at', 'last_used_at'];

export const listApiKeys = (db: Knex, orgId: string, projectIds: string[]) =>
  db('api_keys').select(API_KEY_VIEW).where({ org_id: orgId }).whereIn('project_id', projectIds).orderBy('created_at');

export const findApiKey = async (db: Db, orgId: string, id: string, opts: { forUpdate?: boolean } = {}) => {
  const q = db('api_keys').select(API_KEY_VIEW).where({ org_id: orgId, id });
  if (opts.forUpdate) q.forUpdate();
  return (await q.first()) ?? null;
};

export const insertApiKey = async (trx: Knex.Transaction, row: Record<string, unknown>) => (await trx('api_keys').insert(row).returning(API_KEY_VIEW))[0];

export const updateApiKeyRow = async (trx: Knex.Transaction, id: string, patch: { name?: string; is_active?: boolean }) =>
  (await trx('api_keys').where({ id }).update(patch).returning(API_KEY_VIEW))[0];

export const deleteApiKeyRow = async (trx: Knex.Transaction, orgId: string, id: string) =>
  (await trx('api_keys').where({ org_id: orgId, id }).delete().returning(API_KEY_VIEW))[0] ?? null;

/** A key with its project and organization, for introspection. */
export const keyInfoRow = (db: Knex, keyId: string) =>
  db('api_keys as k')
    .join('projects as p', 'p.id', 'k.project_id')
    .join('organizations as o', 'o.id', 'k.org_id')
    .where('k.id', keyId)
    .select('k.id', 'k.name', 'k.scope', 'k.prefix', 'k.last4', 'k.is_active', 'k.created_at', 'k.last_used_at', 'p.id as project_id', 'p.name as project_name', 'o.id as org_id', 'o.name as org_name', 'o.plan')
    .first();

/** What responses and audit rows show of a provider key: the masked hint, never the ciphertext. */
const PROVIDER_KEY_VIEW = ['id', 'project_id', 'provider', 'key_hint as masked_key', 'base_url', 'master_key_id', 'created_at', 'updated_at'];

export const listProviderKeyRows = (db: Knex, orgId: string, projectIds: string[]) =>
  db('provider_keys').select(PROVIDER_KEY_VIEW).where({ org_id: orgId }).whereIn('project_id', projectIds).orderBy(['project_id', 'provider']);

export const findProviderKeyRow = (db: Db, orgId: string, id: string) => db('provider_keys').select(PROVIDER_KEY_VIEW).where({ org_id: orgId, id }).first();

export const lockProviderKeyRow = (trx: Knex.Transaction, projectId: string, provider: string) =>
  trx('provider_keys').select(PROVIDER_KEY_VIEW).where({ project_id: projectId, provider }).forUpdate().first();

export interface ProviderKeyValues {
  api_key_ciphertext: string | null;
  master_key_id: string | null;
  key_hint: string | null;
  base_url: string | null;
}

/** One entry per (project, provider): inserts it or replaces its values. */
export const upsertProviderKeyRow = async (trx: Knex.Transaction, ids: { org_id: string; project_id: string; provider: string; created_by: string | null }, values: ProviderKeyValues) =>
  (await trx('provider_keys').insert({ ...ids, ...values }).onConflict(['project_id', 'provider']).merge({ ...values, updated_at: trx.fn.now() }).returning(PROVIDER_KEY_VIEW))[0];

export const deleteProviderKeyRow = (trx: Knex.Transaction, id: string) => trx('provider_keys').where({ id }).delete();

export const providerKeyCipher = (db: Db, projectId: string, provider: string) =>
  db('provider_keys').select('api_key_ciphertext', 'master_key_id', 'base_url').where({ project_id: projectId, provider }).first();

/** Rows still encrypted under another master key, locked for re-encryption by one worker. */
export const staleProviderKeys = (trx: Knex.Transaction, currentKeyId: string, limit: number) =>
  trx('provider_keys')
    .select('id', 'project_id', 'provider', 'api_key_ciphertext', 'master_key_id')
    .whereNotNull('api_key_ciphertext')
    .whereNot('master_key_id', currentKeyId)
    .limit(limit)
    .forUpdate()
    .skipLocked();

export const setProviderKeyCipher = (trx: Knex.Transaction, id: string, ciphertext: string, keyId: string) =>
  trx('provider_keys').where({ id }).update({ api_key_ciphertext: ciphertext, master_key_id: keyId });
