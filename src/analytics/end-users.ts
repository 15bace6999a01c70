import type { Knex } from 'knex';
import { windowStartSql } from '../rate-limits/service';

/**
 * End-user queries (behind the analytics boundary): the list reads the end_users table kept by
 * the request-log writer, so the first page sorted by cost is an index scan whatever the size of
 * the request log; top models, sessions and the current rate-limit window are joined per page.
 */
export const USER_SORTS = [
  'cost_usd',
  'requests',
  'total_tokens',
  'errors',
  'error_rate',
  'last_seen',
  'first_seen',
  'user_id',
] as const;
type UserSort = (typeof USER_SORTS)[number];

const SORT_SQL: Record<UserSort, string> = {
  cost_usd: 'u.cost_usd',
  requests: 'u.requests',
  total_tokens: 'u.total_tokens',
  errors: 'u.errors',
  error_rate: '(case when u.requests > 0 then u.errors::float8 / u.requests else 0 end)',
  last_seen: 'u.last_seen',
  first_seen: 'u.first_seen',
  user_id: 'u.user_id',
};
/** The cursor's sort value travels as text; this casts it back. */
const CAST: Record<UserSort, string> = {
  cost_usd: 'numeric',
  requests: 'bigint',
  total_tokens: 'bigint',
  errors: 'bigint',
  error_rate: 'float8',
  last_seen: 'timestamptz',
  first_seen: 'timestamptz',
  user_id: 'text',
};

export interface UserListQuery {
  projectIds: string[];
  sort: UserSort;
  order: 'asc' | 'desc';
  search?: string | undefined;
  limit: number;
  /** (sort value as text, project id, user id) of the previous page's last row. */
  after: [string, string, string] | null;
}

const RECENT = 500;

/** A top model of an end user's latest calls (json_agg: the numbers stay numbers). */
interface TopModel {
  model: string;
  requests: number;
  cost_usd: number;
}
/** The current window of the project's end-user rate limit (json_build_object: its start is timestamp text). */
interface UserRateLimit {
  window_start: string;
  window_seconds: number;
  requests: number;
  tokens: number;
  requests_limit: number | null;
  tokens_limit: number | null;
}
/** A row of USER_COLUMNS: an end_users row (bigint and numeric as numbers) with its derived columns. */
export interface EndUserRecord {
  project_id: string;
  user_id: string;
  first_seen: Date;
  last_seen: Date;
  requests: number;
  errors: number;
  error_rate: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  traces: number;
  sessions: number;
  top_models: TopModel[];
  /** Null when the project has no rate limit. */
  rate_limit: UserRateLimit | null;
}
/** A row of the list: the sort column's value as text too (the cursor's first part). */
export interface EndUserListRecord extends EndUserRecord {
  sort_key: string;
}
const USER_COLUMNS = `u.project_id, u.user_id, u.first_seen, u.last_seen, u.requests, u.errors,
  case when u.requests > 0 then round(u.errors::numeric / u.requests, 6)::float8 else 0 end as error_rate,
  u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cost_usd::float8 as cost_usd, u.traces, u.sessions,
  -- Top models of the user's latest ${RECENT} calls: an index range per user, not a per-model table to keep up.
  coalesce((select json_agg(json_build_object('model', m.model, 'requests', m.n, 'cost_usd', m.cost)
                            order by m.n desc, m.model)
              from (select r.model, count(*) as n, coalesce(sum(r.cost_usd), 0)::float8 as cost
                      from (select model, cost_usd from requests r
                             where r.project_id = u.project_id and r.user_id = u.user_id
                             order by r.created_at desc limit ${RECENT}) r
                     where r.model <> '' group by r.model order by n desc, r.model limit 3) m), '[]') as top_models,
  (select json_build_object('window_start', ${windowStartSql('l.window_seconds')}, 'window_seconds', l.window_seconds,
            'requests', coalesce(c.requests, 0), 'tokens', coalesce(c.tokens, 0),
            'requests_limit', l.requests_per_window, 'tokens_limit', l.tokens_per_window)
     from rate_limits l left join rate_limit_counters c on c.project_id = l.project_id and c.user_id = u.user_id
      and c.window_start = ${windowStartSql('l.window_seconds')}
    where l.project_id = u.project_id) as rate_limit`;

export async function listEndUsers(db: Knex, q: UserListQuery) {
  const key = SORT_SQL[q.sort];
  const dir = q.order === 'asc' ? '>' : '<';
  const w = ['u.project_id = any(?::uuid[])'];
  const a: Knex.RawBinding[] = [q.projectIds];
  if (q.search) {
    w.push("u.user_id ilike ? escape '\\'");
    a.push(`%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (q.after) {
    w.push(`(${key}, u.project_id, u.user_id) ${dir} (?::${CAST[q.sort]}, ?::uuid, ?)`);
    a.push(...q.after);
  }
  const { rows } = await db.raw<{ rows: EndUserListRecord[] }>(
    `select ${USER_COLUMNS}, (${key})::text as sort_key from end_users u
      where ${w.join(' and ')}
      order by ${key} ${q.order}, u.project_id ${q.order}, u.user_id ${q.order} limit ?`,
    [...a, q.limit + 1],
  );
  return rows;
}

export async function findEndUser(db: Knex, projectIds: string[], userId: string): Promise<EndUserRecord | undefined> {
  const { rows } = await db.raw<{ rows: EndUserRecord[] }>(
    `select ${USER_COLUMNS} from end_users u
      where u.project_id = any(?::uuid[]) and u.user_id = ? order by u.last_seen desc limit 1`,
    [projectIds, userId],
  );
  return rows[0];
}

/** One of the end user's latest requests (a `requests` row's columns; cost_usd null when unpriced). */
export interface UserRequestRecord {
  id: string;
  provider: string;
  model: string;
  status_code: number;
  total_tokens: number;
  cost_usd: number | null;
  latency_ms: number;
  session_id: string | null;
  created_at: Date;
}
/** One of the end user's sessions: last_seen (its latest call) null when no call of it is found. */
export interface UserSessionRecord {
  session_id: string;
  first_seen: Date;
  last_seen: Date | null;
  requests: number;
  cost_usd: number;
}

/** The end user's latest requests and sessions (detail page). */
export async function endUserActivity(db: Knex, projectId: string, userId: string, limit: number) {
  const [requests, sessions] = await Promise.all([
    db.raw<{ rows: UserRequestRecord[] }>(
      `select id, provider, model, status_code, total_tokens, cost_usd::float8 as cost_usd, latency_ms,
              session_id, created_at
         from requests where project_id = ? and user_id = ? order by created_at desc, id desc limit ?`,
      [projectId, userId, limit],
    ),
    db.raw<{ rows: UserSessionRecord[] }>(
      `select s.session_id, s.first_seen, a.last_seen, a.requests, a.cost_usd
         from (select session_id, first_seen from end_user_sessions
                where project_id = ? and user_id = ? order by first_seen desc, session_id limit ?) s
         cross join lateral (select max(created_at) as last_seen, count(*) as requests,
                                    coalesce(sum(cost_usd), 0)::float8 as cost_usd
                               from requests r
                              where r.project_id = ? and r.session_id = s.session_id and r.user_id = ?) a
        order by s.first_seen desc, s.session_id`,
      [projectId, userId, limit, projectId, userId],
    ),
  ]);
  return { requests: requests.rows, sessions: sessions.rows };
}
