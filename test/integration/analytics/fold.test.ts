import { randomUUID } from 'node:crypto';
import { scheduleId } from '../../../src/temporal/schedules';
import { analyticsFoldWorkflow, analyticsPropertyKeysWorkflow } from '../../../workflows';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from './seed';

/** Rollup deltas: exact reads before the fold, the fold workflow, and its schedule on the worker's server. */
describe('pending rollup batches and their fold', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  it('answers exactly before the fold, folds through the workflow, and answers the same after', async () => {
    const base = { orgId: t.orgId, projectId: t.projectId };
    await writeRows(
      app.database.db,
      [
        requestRow(base, { created_at: '2026-05-01T10:10:00.000Z', user_id: 'a', cost_usd: 0.5 }),
        requestRow(base, { created_at: '2026-05-01T10:20:00.000Z', user_id: 'b', cost_usd: 0.25, status_code: 500 }),
      ],
      { fold: false },
    );
    await writeRows(
      app.database.db,
      [requestRow(base, { created_at: '2026-05-01T11:00:00.000Z', user_id: 'a', cost_usd: 1 })],
      { fold: false },
    );
    const count = async () => Number((await app.database.db('rollup_pending').count('* as n'))[0]!.n);
    expect(await count()).toBe(2);
    const qs = 'from=2026-05-01T10:00:00Z&to=2026-05-01T12:00:00Z&granularity=hour';
    const before = (await api(app, 'GET', `/api/v1/stats?${qs}`, { token: t.fullKey })).body.data;
    expect(before.source).toBe('rollup');
    expect(before.totals).toMatchObject({ requests: 3, errors: 1, cost_usd: 1.75, unique_users: 2 });
    expect(before.series.map((p: { requests: number; unique_users: number }) => [p.requests, p.unique_users])).toEqual([
      [2, 2],
      [1, 1],
    ]);

    const { client } = app.runtime.ctx.temporal;
    const out = await client.workflow.execute(analyticsFoldWorkflow, {
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      workflowId: `fold-${randomUUID()}`,
    });
    expect(out.folded).toBe(2);
    expect(await count()).toBe(0);
    const after = (await api(app, 'GET', `/api/v1/stats?${qs}`, { token: t.fullKey })).body.data;
    expect(after).toEqual(before);
    const users = (await api(app, 'GET', '/api/v1/users', { token: t.fullKey })).body.data;
    expect(users.map((u: { user_id: string; requests: number }) => [u.user_id, u.requests])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('the worker keeps the fold schedule (every minute) on its Temporal server', async () => {
    const { client } = app.runtime.ctx.temporal;
    const d = await client.schedule.getHandle(scheduleId(app.config.TEMPORAL_TASK_QUEUE, 'analytics-fold')).describe();
    expect(d.spec.intervals).toEqual([expect.objectContaining({ every: 60_000 })]);
    expect(d.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'analyticsFoldWorkflow',
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
    });
    expect(d.state.note).toContain('rollups');
  });

  it(
    'the worker keeps the property-keys schedule (hourly), ' + 'whose workflow registers a busy few-valued key',
    async () => {
      const { client } = app.runtime.ctx.temporal;
      const d = await client.schedule
        .getHandle(scheduleId(app.config.TEMPORAL_TASK_QUEUE, 'analytics-property-keys'))
        .describe();
      expect(d.spec.intervals).toEqual([expect.objectContaining({ every: 3_600_000 })]);
      expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'analyticsPropertyKeysWorkflow' });
      const base = { orgId: t.orgId, projectId: t.projectId };
      await writeRows(
        app.database.db,
        Array.from({ length: 4 }, (_, i) =>
          requestRow(base, { created_at: new Date().toISOString(), properties: { plan: i % 2 ? 'a' : 'b' } }),
        ),
      );
      const out = await client.workflow.execute(analyticsPropertyKeysWorkflow, {
        taskQueue: app.config.TEMPORAL_TASK_QUEUE,
        workflowId: `keys-${randomUUID()}`,
      });
      expect(out).toEqual({ registered: 1, dropped: 0 });
      expect(await app.database.db('property_rollup_keys').where({ project_id: t.projectId }).pluck('name')).toEqual([
        'plan',
      ]);
    },
  );
});
