import type { Knex } from 'knex';
import type { TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from '../analytics/seed';
import { seedWebhook } from '../webhooks/fixtures';
import type { EvalDeps } from '../../../src/alerts/evaluate';
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

/** The evaluation tests' tenant and the evaluator's dependencies, on an app of the api role. */
export async function seedEvaluation(app: TestApp): Promise<{ t: SeededTenant; deps: EvalDeps }> {
  const db = app.runtime.ctx.db;
  const t = await seedTenant(app, { name: 'Alerting Org' });
  const deps = { db, store: app.runtime.services!.analytics };
  // Someone listens to alert.triggered, so notifications are written to the outbox.
  await seedWebhook(db, app.config, t.orgId, 'https://hooks.example.com/alerts', { events: ['alert.triggered'] });
  return { t, deps };
}

/** What evaluations left of a rule: its events, its states (by group) and its alert.triggered outbox rows. */
export function ruleRecords(db: () => Knex) {
  return {
    events: (ruleId: string) =>
      db()('alert_events')
        .where({ rule_id: ruleId })
        .orderBy([{ column: 'at' }, { column: 'kind' }]),
    states: (ruleId: string) => db()('alert_states').where({ rule_id: ruleId }).orderBy('group_key'),
    outbox: async (ruleId: string) =>
      (await db()('event_outbox').where({ kind: 'alert.triggered' })).filter((r) => r.payload.alert.id === ruleId),
  };
}
