import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from '../analytics/seed';

/** Shared steps of the human-eval tests: score configs and request rows to review, and a reviewer's calls. */
export type Role = 'admin' | 'editor' | 'viewer';

/** `quality` (categorical: good 1, bad 0) and `rating` (numeric 1–5); their ids. */
export async function seedScoreConfigs(app: TestApp, t: SeededTenant) {
  const cfg = async (body: Record<string, unknown>) =>
    (await api(app, 'POST', '/api/v1/score-configs', { token: t.admin.token, orgId: t.orgId, body })).body.data
      .id as string;
  const quality = await cfg({
    name: 'quality',
    data_type: 'categorical',
    categories: [
      { label: 'good', value: 1 },
      { label: 'bad', value: 0 },
    ],
  });
  const rating = await cfg({ name: 'rating', data_type: 'numeric', min: 1, max: 5 });
  return { quality, rating };
}

/** Four logged requests (input `q<i>`, output `a<i>`) of the tenant's project; their ids, in order. */
export async function seedRequests(app: TestApp, t: SeededTenant): Promise<string[]> {
  const rows = Array.from({ length: 4 }, (_, i) =>
    requestRow(
      { orgId: t.orgId, projectId: t.projectId },
      {
        log_mode: 'full',
        request_body: JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }] }),
        response_body: JSON.stringify({ choices: [{ message: { content: `a${i}` } }] }),
      },
    ),
  );
  await writeRows(app.database.db, rows);
  return rows.map((r) => r.id);
}

/** A reviewer's calls: the next item of a campaign's queue, and an answer scoring both configs. */
export function reviewerClient(ctx: () => { app: TestApp; t: SeededTenant; quality: string; rating: string }) {
  const as = (role: Role) => ({ token: ctx().t[role].token, orgId: ctx().t.orgId });
  const next = async (role: Role, id: string) =>
    (await api(ctx().app, 'GET', `/api/v1/annotation/queue?human_eval_id=${id}`, as(role))).body.data;
  const answer = (
    role: 'admin' | 'editor',
    item: { human_eval: { id: string }; target_key: string },
    label: string,
    stars = 4,
  ) =>
    api(ctx().app, 'POST', '/api/v1/annotation/queue', {
      ...as(role),
      body: {
        human_eval_id: item.human_eval.id,
        target_key: item.target_key,
        scores: [
          { config_id: ctx().quality, string_value: label },
          { config_id: ctx().rating, value: stars },
        ],
      },
    });
  return { as, next, answer };
}
