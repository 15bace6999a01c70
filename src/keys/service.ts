import type { LocalChanges } from '../db/changes';
import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { ApiKeyScope, Principal } from '../auth/principal';
import { badRequest, notFound } from '../http/errors';
import { requireProject } from '../tenancy/projects/service';
import { generateApiKey } from '../auth/api-keys';
import type { Keyring } from '../auth/crypto';
import { KEYLESS_PROVIDERS, sealProviderKey } from './provider-keys';
import { isoOrNull, isoText } from '../db/convert';
import * as q from './queries';
import type { ProviderKeyView, UpsertProviderKey } from './schemas';
import type { Scope } from '../http/route';

type User = Principal & { kind: 'user' };

// Views in the columns' order; timestamps as the ISO text JSON gave the Dates (audit snapshots did the same).
const apiKeyView = (r: q.ApiKeyRecord) => ({
  id: r.id,
  org_id: r.org_id,
  project_id: r.project_id,
  name: r.name,
  scope: r.scope,
  prefix: r.prefix,
  last4: r.last4,
  is_active: r.is_active,
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
  last_used_at: isoOrNull(r.last_used_at),
});
const providerKeyView = (r: q.ProviderKeyRecord): ProviderKeyView => ({
  id: r.id,
  project_id: r.project_id,
  provider: r.provider,
  masked_key: r.masked_key,
  base_url: r.base_url,
  master_key_id: r.master_key_id,
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
});
const maybe = <R, V>(r: R | null | undefined, view: (r: R) => V) => (r ? view(r) : null);

export const listApiKeys = async (db: Knex, scope: Scope) =>
  (await q.listApiKeys(db, scope.orgId, scope.projectIds)).map(apiKeyView);

export async function getApiKey(db: Knex, orgId: string, id: string) {
  const row = await q.findApiKey(db, orgId, id);
  if (!row) throw notFound('API key');
  return apiKeyView(row);
}

/**
 * Creates a key in a project of the caller's organization and returns it once in full (`key`); only its SHA-256 is
 * stored.
 */
export async function createApiKey(
  db: Knex,
  actor: User,
  input: { projectId: string; name: string; scope: ApiKeyScope },
) {
  await requireProject(db, actor.orgId, input.projectId);
  const g = generateApiKey(input.scope);
  return db.transaction(async (trx) => {
    const row = apiKeyView(
      await q.insertApiKey(trx, {
        org_id: actor.orgId,
        project_id: input.projectId,
        name: input.name,
        scope: input.scope,
        key_hash: g.hash,
        prefix: g.prefix,
        last4: g.last4,
        created_by: actor.userId,
      }),
    );
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'api_key.created',
      resourceType: 'api_key',
      resourceId: row.id,
      after: row,
    });
    return { ...row, key: g.key };
  });
}

export async function updateApiKey(
  db: Knex,
  changes: LocalChanges,
  actor: Principal,
  id: string,
  patch: { name?: string; is_active?: boolean },
) {
  const out = await db.transaction(async (trx) => {
    const before = maybe(await q.findApiKey(trx, actor.orgId, id, { forUpdate: true }), apiKeyView);
    if (!before) throw notFound('API key');
    const row = apiKeyView(await q.updateApiKeyRow(trx, id, patch));
    const action =
      patch.is_active === false && before.is_active
        ? 'api_key.revoked'
        : patch.is_active === true && !before.is_active
          ? 'api_key.restored'
          : 'api_key.updated';
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action,
      resourceType: 'api_key',
      resourceId: id,
      before,
      after: row,
    });
    return row;
  });
  changes.changed('api_keys');
  return out;
}

export async function deleteApiKey(db: Knex, changes: LocalChanges, actor: Principal, id: string) {
  await db.transaction(async (trx) => {
    const before = maybe(await q.deleteApiKeyRow(trx, actor.orgId, id), apiKeyView);
    if (!before) throw notFound('API key');
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'api_key.deleted',
      resourceType: 'api_key',
      resourceId: id,
      before,
    });
  });
  changes.changed('api_keys');
}

/** The calling key with its project and organization (never the secret). */
export async function keyInfo(db: Knex, keyId: string) {
  const row = await q.keyInfoRow(db, keyId);
  if (!row) throw notFound('API key');
  return {
    key: {
      id: row.id,
      name: row.name,
      scope: row.scope,
      prefix: row.prefix,
      last4: row.last4,
      created_at: isoText(row.created_at),
      last_used_at: isoOrNull(row.last_used_at),
    },
    status: row.is_active ? 'active' : 'revoked',
    is_active: row.is_active,
    scope: row.scope,
    project: { id: row.project_id, name: row.project_name },
    organization: { id: row.org_id, name: row.org_name, plan: row.plan },
  };
}

export const listProviderKeys = async (db: Knex, scope: Scope) =>
  (await q.listProviderKeyRows(db, scope.orgId, scope.projectIds)).map(providerKeyView);

export async function getProviderKeyView(db: Knex | Knex.Transaction, orgId: string, id: string) {
  const row = await q.findProviderKeyRow(db, orgId, id);
  if (!row) throw notFound('Provider key');
  return providerKeyView(row);
}

/**
 * Creates or replaces the one entry for (project, provider). A replacement without `api_key` keeps
 * nothing of the old key: the caller states the full desired configuration.
 */
export async function upsertProviderKey(
  db: Knex,
  changes: LocalChanges,
  ring: Keyring,
  actor: User,
  body: UpsertProviderKey,
) {
  if (!body.api_key && !KEYLESS_PROVIDERS.has(body.provider)) {
    throw badRequest(`Invalid body.api_key: required for provider ${body.provider}`, 'validation_error');
  }
  await requireProject(db, actor.orgId, body.project_id);
  const values = sealProviderKey(ring, body.project_id, body.provider, body.api_key ?? null, body.base_url ?? null);
  const out = await db.transaction(async (trx) => {
    const before = maybe(await q.lockProviderKeyRow(trx, body.project_id, body.provider), providerKeyView);
    const ids = { org_id: actor.orgId, project_id: body.project_id, provider: body.provider, created_by: actor.userId };
    const view = providerKeyView(await q.upsertProviderKeyRow(trx, ids, values));
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: before ? 'provider_key.replaced' : 'provider_key.created',
      resourceType: 'provider_key',
      resourceId: view.id,
      before: before ?? undefined,
      after: view,
    });
    return { created: !before, row: view };
  });
  changes.changed('provider_keys');
  return out;
}

export async function deleteProviderKey(db: Knex, changes: LocalChanges, actor: Principal, id: string) {
  await db.transaction(async (trx) => {
    const before = await getProviderKeyView(trx, actor.orgId, id);
    await q.deleteProviderKeyRow(trx, id);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'provider_key.deleted',
      resourceType: 'provider_key',
      resourceId: id,
      before,
    });
  });
  changes.changed('provider_keys');
}
