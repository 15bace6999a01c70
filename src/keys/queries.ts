import type { Knex } from 'knex';
import type { ApiKeyScope } from '../auth/principal';

type Db = Knex | Knex.Transaction;

/** An api_keys row as API_KEY_VIEW selects it, as pg returns it. */
export interface ApiKeyRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  scope: ApiKeyScope;
  prefix: string;
  last4: string;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}
/** A key with its project and organization (keyInfoRow). */
export interface KeyInfoRecord {
  id: string;
  name: string;
  scope: ApiKeyScope;
  prefix: string;
  last4: string;
  is_active: boolean;
  created_at: Date;
  last_used_at: Date | null;
  project_id: string;
  project_name: string;
  org_id: string;
  org_name: string;
  plan: string;
}
/** A provider_keys row as PROVIDER_KEY_VIEW selects it. */
export interface ProviderKeyRecord {
  id: string;
  project_id: string;
  provider: string;
  masked_key: string | null;
  base_url: string | null;
  master_key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What lists and reads show of an API key: never the key or its hash. */
const API_KEY_VIEW = [
  'id',
  'org_id',
  'project_id',
  'name',
  'scope',
  'prefix',
  'last4',
  'is_active',
  'created_at',
  'updated_at',
  'last_used_at',
];

export const listApiKeys = (db: Knex, orgId: string, projectIds: string[]): Promise<ApiKeyRecord[]> =>
  db('api_keys').select(API_KEY_VIEW).where({ org_id: orgId }).whereIn('project_id', projectIds).orderBy('created_at');

export const findApiKey = async (
  db: Db,
  orgId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ApiKeyRecord | null> => {
  const q = db('api_keys').select(API_KEY_VIEW).where({ org_id: orgId, id });
  if (opts.forUpdate) q.forUpdate();
  return (await q.first()) ?? null;
};

export const insertApiKey = async (trx: Knex.Transaction, row: Record<string, unknown>): Promise<ApiKeyRecord> =>
  (await trx('api_keys').insert(row).returning(API_KEY_VIEW))[0];

export const updateApiKeyRow = async (
  trx: Knex.Transaction,
  id: string,
  patch: { name?: string; is_active?: boolean },
): Promise<ApiKeyRecord> => (await trx('api_keys').where({ id }).update(patch).returning(API_KEY_VIEW))[0];

export const deleteApiKeyRow = async (trx: Knex.Transaction, orgId: string, id: string): Promise<ApiKeyRecord | null> =>
  (await trx('api_keys').where({ org_id: orgId, id }).delete().returning(API_KEY_VIEW))[0] ?? null;

/** A key with its project and organization, for introspection. */
export const keyInfoRow = (db: Knex, keyId: string): Promise<KeyInfoRecord | undefined> =>
  db('api_keys as k')
    .join('projects as p', 'p.id', 'k.project_id')
    .join('organizations as o', 'o.id', 'k.org_id')
    .where('k.id', keyId)
    .select(
      'k.id',
      'k.name',
      'k.scope',
      'k.prefix',
      'k.last4',
      'k.is_active',
      'k.created_at',
      'k.last_used_at',
      'p.id as project_id',
      'p.name as project_name',
      'o.id as org_id',
      'o.name as org_name',
      'o.plan',
    )
    .first();

/** What responses and audit rows show of a provider key: the masked hint, never the ciphertext. */
const PROVIDER_KEY_VIEW = [
  'id',
  'project_id',
  'provider',
  'key_hint as masked_key',
  'base_url',
  'master_key_id',
  'created_at',
  'updated_at',
];

export const listProviderKeyRows = (db: Knex, orgId: string, projectIds: string[]): Promise<ProviderKeyRecord[]> =>
  db('provider_keys')
    .select(PROVIDER_KEY_VIEW)
    .where({ org_id: orgId })
    .whereIn('project_id', projectIds)
    .orderBy(['project_id', 'provider']);

export const findProviderKeyRow = (db: Db, orgId: string, id: string): Promise<ProviderKeyRecord | undefined> =>
  db('provider_keys').select(PROVIDER_KEY_VIEW).where({ org_id: orgId, id }).first();

export const lockProviderKeyRow = (
  trx: Knex.Transaction,
  projectId: string,
  provider: string,
): Promise<ProviderKeyRecord | undefined> =>
  trx('provider_keys').select(PROVIDER_KEY_VIEW).where({ project_id: projectId, provider }).forUpdate().first();

export interface ProviderKeyValues {
  api_key_ciphertext: string | null;
  master_key_id: string | null;
  key_hint: string | null;
  base_url: string | null;
}

/** One entry per (project, provider): inserts it or replaces its values. */
export const upsertProviderKeyRow = async (
  trx: Knex.Transaction,
  ids: { org_id: string; project_id: string; provider: string; created_by: string | null },
  values: ProviderKeyValues,
): Promise<ProviderKeyRecord> =>
  (
    await trx('provider_keys')
      .insert({ ...ids, ...values })
      .onConflict(['project_id', 'provider'])
      .merge({ ...values, updated_at: trx.fn.now() })
      .returning(PROVIDER_KEY_VIEW)
  )[0];

export const deleteProviderKeyRow = (trx: Knex.Transaction, id: string) => trx('provider_keys').where({ id }).delete();

export const providerKeyCipher = (db: Db, projectId: string, provider: string) =>
  db('provider_keys')
    .select('api_key_ciphertext', 'master_key_id', 'base_url')
    .where({ project_id: projectId, provider })
    .first();

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
