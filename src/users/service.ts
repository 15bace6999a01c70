import type { AnalyticsStore } from '../analytics/store';
import type { EndUserRecord } from '../analytics/end-users';
import { notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { stats } from '../stats/service';
import type { UserListParams } from './schemas';
import type { z } from 'zod';
import type { userDetailQuery } from './schemas';
import { isoOrNull, isoText } from '../db/convert';

/** Cursor of the end-user list: (sort value, project id, user id) of the last row. */
const cursor = cursorCodec('text', 'uuid', 'text');
const DAY = 86_400_000;

/** The API view of an end-user row (a list row's sort key left out). */
function shape({ sort_key: _s, ...u }: EndUserRecord & { sort_key?: string }) {
  const rl = u.rate_limit;
  return {
    ...u,
    first_seen: isoText(u.first_seen),
    last_seen: isoText(u.last_seen),
    requests: Number(u.requests),
    errors: Number(u.errors),
    prompt_tokens: Number(u.prompt_tokens),
    completion_tokens: Number(u.completion_tokens),
    total_tokens: Number(u.total_tokens),
    traces: Number(u.traces),
    sessions: Number(u.sessions),
    rate_limit: rl && { ...rl, window_start: new Date(rl.window_start).toISOString() },
  };
}

export async function listUsers(analytics: AnalyticsStore, projectIds: string[], p: UserListParams) {
  const after = p.cursor ? (cursor.decode(p.cursor) as [string, string, string]) : null;
  const rows = await analytics.listEndUsers({
    projectIds,
    sort: p.sort,
    order: p.order,
    search: p.search,
    limit: p.limit,
    after,
  });
  return pageOf(rows, p.limit, cursor, (r) => [r.sort_key, r.project_id, r.user_id], shape);
}

/** One end user: totals, a time series (default the last 30 days), the latest requests and sessions. */
export async function userDetail(
  analytics: AnalyticsStore,
  projectIds: string[],
  userId: string,
  p: z.output<typeof userDetailQuery>,
) {
  const row = await analytics.findEndUser(projectIds, userId);
  if (!row) throw notFound('End user');
  const projectId = row.project_id;
  const to = p.to ?? new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000).toISOString();
  const from = p.from ?? new Date(Date.parse(to) - 30 * DAY).toISOString();
  const [series, activity] = await Promise.all([
    stats(analytics, [projectId], {
      view: 'requests',
      granularity: p.granularity,
      tz: p.tz,
      from,
      to,
      user_id: userId,
      top: 10,
      order_by: 'requests',
      source: 'auto',
    } as never),
    analytics.endUserActivity(projectId, userId, 20),
  ]);
  return {
    ...shape(row),
    stats: series,
    latest_requests: activity.requests.map((r) => ({ ...r, created_at: isoText(r.created_at) })),
    latest_sessions: activity.sessions.map((s) => ({
      ...s,
      first_seen: isoText(s.first_seen),
      last_seen: isoOrNull(s.last_seen),
      requests: Number(s.requests),
    })),
  };
}
