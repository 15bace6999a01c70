import type { Knex } from 'knex';

const sorted = <T>(m: Map<string, T>) =>
  [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);

/** Users seen in traces (user_id on a trace): first/last seen and a trace count, no request totals. */
export async function touchTraceUsers(
  trx: Knex.Transaction,
  seen: { projectId: string; userId: string; at: string }[],
): Promise<void> {
  if (seen.length === 0) return;
  const m = new Map<
    string,
    { project_id: string; user_id: string; first_seen: string; last_seen: string; traces: number }
  >();
  for (const s of seen) {
    const k = `${s.projectId}\u0000${s.userId}`;
    const u = m.get(k) ?? { project_id: s.projectId, user_id: s.userId, first_seen: s.at, last_seen: s.at, traces: 0 };
    m.set(k, u);
    if (s.at < u.first_seen) u.first_seen = s.at;
    if (s.at > u.last_seen) u.last_seen = s.at;
    u.traces++;
  }
  await trx.raw(
    `insert into end_users (project_id, user_id, first_seen, last_seen, traces)
     select project_id, user_id, first_seen, last_seen, traces from json_populate_recordset(null::end_users, ?::json)
     on conflict (project_id, user_id) do update set
       first_seen = least(end_users.first_seen, excluded.first_seen),
       last_seen = greatest(end_users.last_seen, excluded.last_seen),
       traces = end_users.traces + excluded.traces`,
    [JSON.stringify(sorted(m))],
  );
}
