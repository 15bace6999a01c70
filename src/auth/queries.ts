import type { Knex } from 'knex';
import type { Role } from './principal';

/** SQL behind authentication: memberships and the projects a caller may read. */
export async function membershipRole(db: Knex, orgId: string, userId: string): Promise<Role | null> {
  const row = await db('memberships').select('role').where({ org_id: orgId, user_id: userId }).first();
  return (row?.role as Role | undefined) ?? null;
}

/** Up to two organizations of the user: enough to tell "none", "exactly one" and "several". */
export const firstOrganizations = (db: Knex, userId: string) =>
  db('memberships').select('org_id').where({ user_id: userId }).limit(2) as Promise<{ org_id: string }[]>;

export const projectOfOrg = (db: Knex, orgId: string, projectId: string) =>
  db('projects').select('id').where({ id: projectId, org_id: orgId }).first() as Promise<{ id: string } | undefined>;

export const projectIdsOfOrg = async (db: Knex, orgId: string) =>
  ((await db('projects').select('id').where({ org_id: orgId }).orderBy('created_at')) as { id: string }[]).map(
    (r) => r.id,
  );

/** The key presented by a caller, found by the SHA-256 of its secret. */
export const apiKeyByHash = (db: Knex, hash: string) =>
  db('api_keys')
    .select('id', 'org_id', 'project_id', 'name', 'scope', 'is_active', 'last_used_at')
    .where({ key_hash: hash })
    .first();

/** Advisory: at most once a minute per key, whatever the number of replicas. */
export const touchApiKey = (db: Knex, id: string) =>
  db.raw(
    'update api_keys set last_used_at = now() ' +
      "where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')",
    [id],
  );
