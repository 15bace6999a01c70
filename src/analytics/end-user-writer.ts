import type { Knex } from 'knex';
import type { RequestRow } from '../proxy/request-row';

/**
 * The end-user tables behind /users, kept by the fold (fold.ts) from each batch's deltas: one
 * statement per fold. A user's sessions are counted by inserting (project, user, session) once
 * (insert if absent) and adding the rows that were new. Key order keeps folds deadlock-free.
 */
interface UserAcc {
  project_id: string;
  user_id: string;
  first_seen: string;
  last_seen: string;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
}

const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);

export function endUserDeltas(rows: readonly RequestRow[]) {
  const users = new Map<string, UserAcc>();
  const sessions = new Map<string, { project_id: string; user_id: string; session_id: string; first_seen: string }>();
  for (const r of rows) {
    if (r.user_id === null) continue;
    const k = `${r.project_id}\u0000${r.user_id}`;
    const u = users.get(k) ?? { project_id: r.project_id, user_id: r.user_id, first_seen: r.created_at, last_seen: r.created_at, requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0 };
    users.set(k, u);
    if (r.created_at < u.first_seen) u.first_seen = r.created_at;
    if (r.created_at > u.last_seen) u.last_seen = r.created_at;
    u.requests++;
    if (r.status_code >= 400) u.errors++;
    u.prompt_tokens += r.prompt_tokens;
    u.completion_tokens += r.completion_tokens;
    u.total_tokens += r.total_tokens;
    u.cost_usd += r.cost_usd ?? 0;
    if (r.session_id !== null) {
      const sk = `${k}\u0000${r.session_id}`;
      const s = sessions.get(sk);
      if (!s) sessions.set(sk, { project_id: r.project_id, user_id: r.user_id, session_id: r.session_id, first_seen: r.created_at });
      else if (r.created_at < s.first_seen) s.first_seen = r.created_at;
    }
  }
  return { users: sorted(users), sessions: sorted(sessions) };
}

const UPSERT = `with new_sessions as (
    insert into end_user_sessions select * from json_populate_recordset(null::end_user_sessions, ?::json)
    on conflict do nothing returning project_id, user_id),
  n as (select project_id, user_id, count(*) as c from new_sessions group by 1, 2)
  insert into end_users (project_id, user_id, first_seen, last_seen, requests, errors, prompt_tokens, completion_tokens, total_tokens, cost_usd, sessions)
  select x.project_id, x.user_id, x.first_seen, x.last_seen, x.requests, x.errors, x.prompt_tokens, x.completion_tokens, x.total_tokens, x.cost_usd, coalesce(n.c, 0)
    from json_populate_recordset(null::end_users, ?::json) x left join n on n.project_id = x.project_id and n.user_id = x.user_id
   order by x.project_id, x.user_id
  on conflict (project_id, user_id) do update set
    first_seen = least(end_users.first_seen, excluded.first_seen), last_seen = greatest(end_users.last_seen, excluded.last_seen),
    requests = end_users.requests + excluded.requests, errors = end_users.errors + excluded.errors,
    prompt_tokens = end_users.prompt_tokens + excluded.prompt_tokens, completion_tokens = end_users.completion_tokens + excluded.completion_tokens,
    total_tokens = end_users.total_tokens + excluded.total_tokens, cost_usd = end_users.cost_usd + excluded.cost_usd,
    sessions = end_users.sessions + excluded.sessions`;

export type EndUserDeltas = ReturnType<typeof endUserDeltas>;

/** Several batches' end-user deltas as one, in key order. */
export function mergeEndUserDeltas(lists: readonly EndUserDeltas[]): EndUserDeltas {
  const users = new Map<string, UserAcc>();
  const sessions = new Map<string, EndUserDeltas['sessions'][number]>();
  for (const d of lists) {
    for (const u of d.users) {
      const k = `${u.project_id}\u0000${u.user_id}`;
      const a = users.get(k);
      if (!a) users.set(k, { ...u });
      else {
        if (u.first_seen < a.first_seen) a.first_seen = u.first_seen;
        if (u.last_seen > a.last_seen) a.last_seen = u.last_seen;
        for (const f of ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd'] as const) a[f] += u[f];
      }
    }
    for (const s of d.sessions) {
      const k = `${s.project_id}\u0000${s.user_id}\u0000${s.session_id}`;
      const a = sessions.get(k);
      if (!a || s.first_seen < a.first_seen) sessions.set(k, { ...s });
    }
  }
  return { users: sorted(users), sessions: sorted(sessions) };
}

export async function applyEndUserDeltas(trx: Knex.Transaction, d: EndUserDeltas): Promise<void> {
  if (d.users.length === 0) return;
  await trx.raw(UPSERT, [JSON.stringify(d.sessions), JSON.stringify(d.users)]);
}

/** Users seen in traces (user_id on a trace): first/last seen and a trace count, no request totals. */
export async function touchTraceUsers(trx: Knex.Transaction, seen: { projectId: string; userId: string; at: string }[]): Promise<void> {
  if (seen.length === 0) return;
  const m = new Map<string, { project_id: string; user_id: string; first_seen: string; last_seen: string; traces: number }>();
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
       first_seen = least(end_users.first_seen, excluded.first_seen), last_seen = greatest(end_users.last_seen, excluded.last_seen),
       traces = end_users.traces + excluded.traces`,
    [JSON.stringify(sorted(m))],
  );
}
