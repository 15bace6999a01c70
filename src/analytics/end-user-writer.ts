import type { Knex } from 'knex';
import type { RequestRow } from '../proxy/request-row';

/**
 * The end-user tables behind /users (totals, top models, sessions), upserted with the request
 * rows in their transaction. Key order keeps concurrent writers deadlock-free.
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
  const models = new Map<string, { project_id: string; user_id: string; model: string; requests: number; cost_usd: number }>();
  const sessions = new Map<string, { project_id: string; user_id: string; session_id: string; first_seen: string; last_seen: string; requests: number; cost_usd: number }>();
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
    if (r.model) {
      const mk = `${k}\u0000${r.model}`;
      const m = models.get(mk) ?? { project_id: r.project_id, user_id: r.user_id, model: r.model, requests: 0, cost_usd: 0 };
      models.set(mk, m);
      m.requests++;
      m.cost_usd += r.cost_usd ?? 0;
    }
    if (r.session_id !== null) {
      const sk = `${k}\u0000${r.session_id}`;
      const s = sessions.get(sk) ?? { project_id: r.project_id, user_id: r.user_id, session_id: r.session_id, first_seen: r.created_at, last_seen: r.created_at, requests: 0, cost_usd: 0 };
      sessions.set(sk, s);
      if (r.created_at < s.first_seen) s.first_seen = r.created_at;
      if (r.created_at > s.last_seen) s.last_seen = r.created_at;
      s.requests++;
      s.cost_usd += r.cost_usd ?? 0;
    }
  }
  return { users: sorted(users), models: sorted(models), sessions: sorted(sessions) };
}

export async function writeEndUsers(trx: Knex.Transaction, rows: readonly RequestRow[]): Promise<void> {
  const d = endUserDeltas(rows);
  if (d.users.length === 0) return;
  await trx.raw(
    `insert into end_users (project_id, user_id, first_seen, last_seen, requests, errors, prompt_tokens, completion_tokens, total_tokens, cost_usd)
     select project_id, user_id, first_seen, last_seen, requests, errors, prompt_tokens, completion_tokens, total_tokens, cost_usd
       from json_populate_recordset(null::end_users, ?::json)
     on conflict (project_id, user_id) do update set
       first_seen = least(end_users.first_seen, excluded.first_seen), last_seen = greatest(end_users.last_seen, excluded.last_seen),
       requests = end_users.requests + excluded.requests, errors = end_users.errors + excluded.errors,
       prompt_tokens = end_users.prompt_tokens + excluded.prompt_tokens, completion_tokens = end_users.completion_tokens + excluded.completion_tokens,
       total_tokens = end_users.total_tokens + excluded.total_tokens, cost_usd = end_users.cost_usd + excluded.cost_usd`,
    [JSON.stringify(d.users)],
  );
  if (d.models.length)
    await trx.raw(
      `insert into end_user_models select * from json_populate_recordset(null::end_user_models, ?::json)
       on conflict (project_id, user_id, model) do update set
         requests = end_user_models.requests + excluded.requests, cost_usd = end_user_models.cost_usd + excluded.cost_usd`,
      [JSON.stringify(d.models)],
    );
  if (d.sessions.length)
    await trx.raw(
      `insert into end_user_sessions select * from json_populate_recordset(null::end_user_sessions, ?::json)
       on conflict (project_id, user_id, session_id) do update set
         first_seen = least(end_user_sessions.first_seen, excluded.first_seen), last_seen = greatest(end_user_sessions.last_seen, excluded.last_seen),
         requests = end_user_sessions.requests + excluded.requests, cost_usd = end_user_sessions.cost_usd + excluded.cost_usd`,
      [JSON.stringify(d.sessions)],
    );
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
