import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from '../analytics/seed';
import type { RequestRow } from '../../../src/requests/row';

/** Shared steps of the alert tests: rules and projects through the API, request rows through the writer. */
export const MIN = 60_000;
/** A fixed evaluation instant on a whole minute (evaluations take the clock explicitly). */
export const T0 = Date.parse('2026-09-01T12:00:00.000Z');

export async function createRule(app: TestApp, t: SeededTenant, body: Record<string, unknown>) {
  const r = await api(app, 'POST', '/api/v1/alerts', {
    token: t.admin.token,
    orgId: t.orgId,
    body: { name: 'rule', operator: 'gt', window_minutes: 15, ...body },
  });
  if (r.status !== 201) throw new Error(`create rule: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as {
    id: string;
    schedule: { id: string; status: string; interval_minutes: number; error: string | null };
  } & Record<string, unknown>;
}

export async function newProject(app: TestApp, t: SeededTenant): Promise<string> {
  const r = await api(app, 'POST', '/api/v1/projects', {
    token: t.admin.token,
    orgId: t.orgId,
    body: { name: `p-${Math.random().toString(36).slice(2, 8)}` },
  });
  if (r.status !== 201) throw new Error(`project: ${r.status}`);
  return r.body.data.id;
}

/** `n` request rows of a project at `at` (ms), each overridable. */
export async function seed(
  app: TestApp,
  t: SeededTenant,
  projectId: string,
  n: number,
  at: number,
  over: Partial<RequestRow> = {},
) {
  const rows = Array.from({ length: n }, () =>
    requestRow({ orgId: t.orgId, projectId }, { created_at: new Date(at).toISOString(), ...over }),
  );
  await writeRows(app.runtime.ctx.db, rows);
}
