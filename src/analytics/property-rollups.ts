import type { Knex } from 'knex';

/**
 * Which custom property keys get hourly rollups (`property_rollup_keys`, migrations/024). A key
 * may carry a value per call (a request id), and rolling it up would write a row per call; so an
 * hourly job (the `analytics-property-keys` schedule) registers, per project, the busiest keys of
 * the last day whose values are few, and drops a registered key once it holds too many values.
 * Registering adds the key's rollups for every row already logged (SQL: register_property_rollups).
 */
interface PropertyKeyPolicy {
  /** The window whose calls are counted (ms before `now`). */
  windowMs: number;
  /** A key is rolled up while its values in the window are at most this many. */
  maxValues: number;
  /** At most this many keys per project (the busiest by calls). */
  maxKeys: number;
}
const DEFAULT_PROPERTY_KEY_POLICY: PropertyKeyPolicy = { windowMs: 86_400_000, maxValues: 200, maxKeys: 10 };

export interface PropertyKeyChanges {
  registered: { projectId: string; names: string[] }[];
  dropped: { projectId: string; names: string[] }[];
}

/** One pass of the policy over every project with calls in the window. */
export async function refreshPropertyRollups(
  db: Knex,
  now = Date.now(),
  policy = DEFAULT_PROPERTY_KEY_POLICY,
): Promise<PropertyKeyChanges> {
  const since = new Date(now - policy.windowMs).toISOString();
  const { rows } = await db.raw<{ rows: { project_id: string; name: string; calls: string; vals: string }[] }>(
    `select project_id, name, count(*) as calls, count(distinct value) as vals
       from (select r.project_id, e.key as name, e.value
               from requests r cross join lateral jsonb_each_text(r.properties) e
              where r.created_at >= ? and r.properties is not null) x
      group by 1, 2`,
    [since],
  );
  const current = await db('property_rollup_keys').select('project_id', 'name');
  const registered = new Set(
    current.map((r: { project_id: string; name: string }) => `${r.project_id}\u0000${r.name}`),
  );
  const byProject = new Map<string, { name: string; calls: number; vals: number }[]>();
  for (const r of rows) {
    const list = byProject.get(r.project_id) ?? [];
    byProject.set(r.project_id, list);
    list.push({ name: r.name, calls: Number(r.calls), vals: Number(r.vals) });
  }
  const out: PropertyKeyChanges = { registered: [], dropped: [] };
  for (const [projectId, keys] of byProject) {
    const isReg = (name: string) => registered.has(`${projectId}\u0000${name}`);
    const drop = keys.filter((k) => isReg(k.name) && k.vals > policy.maxValues).map((k) => k.name);
    const kept = keys.filter((k) => isReg(k.name) && k.vals <= policy.maxValues).length;
    const add = keys
      .filter((k) => !isReg(k.name) && k.vals <= policy.maxValues)
      .sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1))
      .slice(0, Math.max(0, policy.maxKeys - kept))
      .map((k) => k.name);
    if (drop.length) {
      await db.raw('select unregister_property_rollups(?, ?::text[])', [projectId, drop]);
      out.dropped.push({ projectId, names: drop });
    }
    if (add.length) {
      await db.raw('select register_property_rollups(?, ?::text[])', [projectId, add]);
      out.registered.push({ projectId, names: add });
    }
  }
  return out;
}

/** The names among `names` registered for every project of `projectIds` (rollups answer them). */
export async function rolledUpProperties(db: Knex, projectIds: string[], names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const { rows } = await db.raw<{ rows: { name: string }[] }>(
    `select name from property_rollup_keys where project_id = any(?::uuid[]) and name = any(?::text[])
      group by name having count(*) = cardinality(?::uuid[])`,
    [projectIds, names, projectIds],
  );
  return new Set(rows.map((r) => r.name));
}
