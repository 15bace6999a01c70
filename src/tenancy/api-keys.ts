import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { ApiKeyScope, Principal } from '../auth/principal';
import { notFound } from '../http/errors';
import { generateApiKey } from '../keys/api-keys';

/** What lists and reads show: never the key or its hash. */
export const API_KEY_VIEW = ['id', 'org_id', 'project_id', 'name', 'scope', 'prefix', 'last4', 'is_active', 'created_at', 'updated_at', 'last_used_at'];

export function listApiKeys(db: Knex, orgId: string, projectIds: string[]) {
  return db('api_keys').select(API_KEY_VIEW).where({ org_id: orgId }).whereIn('project_id', projectIds).orderBy('created_at');
}

export async function getApiKey(db: Knex, orgId: string, id: string) {
  const row = await db('api_keys').select(API_KEY_VIEW).where({ org_id: orgId, id }).first();
  if (!row) throw notFound('API key');
  return row;
}

/** Creates a key and returns it once in full (`key`); only its SHA-256 is stored. */
export async function createApiKey(db: Knex, actor: Principal, input: { projectId: string; name: string; scope: ApiKeyScope }) {
  const g = generateApiKey(input.scope);
  return db.transaction(async (trx) => {
    const [row] = await trx('api_keys')
      .insert({
        org_id: actor.orgId,
        project_id: input.projectId,
        name: input.name,
        scope: input.scope,
        key_hash: g.hash,
        prefix: g.prefix,
        last4: g.last4,
        created_by: actor.kind === 'user' ? actor.userId : null,
      })
      .returning(API_KEY_VIEW);
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'api_key.created', resourceType: 'api_key', resourceId: row.id, after: row });
    return { ...row, key: g.key };
  });
}

export async function updateApiKey(db: Knex, actor: Principal, id: string, patch: { name?: string; is_active?: boolean }) {
  return db.transaction(async (trx) => {
    const before = await trx('api_keys').select(API_KEY_VIEW).where({ org_id: actor.orgId, id }).forUpdate().first();
    if (!before) throw notFound('API key');
    const [row] = await trx('api_keys').where({ id }).update(patch).returning(API_KEY_VIEW);
    const action =
      patch.is_active === false && before.is_active ? 'api_key.revoked' : patch.is_active === true && !before.is_active ? 'api_key.restored' : 'api_key.updated';
    await recordAudit(trx, { orgId: actor.orgId, actor, action, resourceType: 'api_key', resourceId: id, before, after: row });
    return row;
  });
}

export async function deleteApiKey(db: Knex, actor: Principal, id: string) {
  await db.transaction(async (trx) => {
    const [before] = await trx('api_keys').where({ org_id: actor.orgId, id }).delete().returning(API_KEY_VIEW);
    if (!before) throw notFound('API key');
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'api_key.deleted', resourceType: 'api_key', resourceId: id, before });
  });
}
