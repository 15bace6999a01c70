import { startTestApp, type TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import { recordEvaluation, type EvalDeps } from '../../../src/alerts/evaluate';
import { fanOutOutbox } from '../../../src/webhooks/dispatch/queries';
import { createRule, MIN, newProject, ruleRecords, seed, seedEvaluation, T0 } from './helpers';

/**
 * Alert evaluation's policies (no data, the request guard, the warning level), its audit rows, the
 * rules it skips and the organization name its notifications carry; the clock is passed in.
 */
describe('alert evaluation', () => {
  let app: TestApp;
  let t: SeededTenant;
  let deps: EvalDeps;
  const at = (ms: number) => new Date(ms);
  const db = () => app.runtime.ctx.db;
  const { events, states } = ruleRecords(db);

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    ({ t, deps } = await seedEvaluation(app));
  });
  afterAll(() => app?.stop());

  it.each([
    { no_data: 'ok', expected: [['no_data', false]], state: 'ok' },
    {
      no_data: 'alert',
      expected: [
        ['no_data', false],
        ['triggered', true],
      ],
      state: 'triggered',
    },
  ])('no_data $no_data: error_rate without calls', async ({ no_data, expected, state }) => {
    const p = await newProject(app, t);
    const rule = await createRule(app, t, { type: 'error_rate', threshold: 0.1, project_id: p, no_data });
    await recordEvaluation(deps, rule.id, at(T0));
    await recordEvaluation(deps, rule.id, at(T0 + MIN)); // still no data: nothing new
    expect((await events(rule.id)).map((e) => [e.kind, e.notified])).toEqual(expected);
    expect((await states(rule.id))[0]).toMatchObject({ state, no_data: true, last_value: null });
  });

  it('no_data keep: a triggered group stays triggered while the data is missing; ok resolves it', async () => {
    const p = await newProject(app, t);
    await seed(app, t, p, 4, T0 - 2 * MIN, { status_code: 503 });
    const keep = await createRule(app, t, { type: 'error_rate', threshold: 0.5, project_id: p, no_data: 'keep' });
    const ok = await createRule(app, t, { type: 'error_rate', threshold: 0.5, project_id: p, no_data: 'ok' });
    for (const r of [keep, ok]) {
      await recordEvaluation(deps, r.id, at(T0));
      await recordEvaluation(deps, r.id, at(T0 + 20 * MIN));
    }
    expect((await states(keep.id))[0]).toMatchObject({ state: 'triggered', no_data: true });
    expect((await events(keep.id)).map((e) => e.kind)).toEqual(['triggered', 'no_data']);
    expect((await states(ok.id))[0]).toMatchObject({ state: 'resolved', no_data: true });
    expect((await events(ok.id)).map((e) => e.kind).sort()).toEqual(['no_data', 'resolved', 'triggered']);
  });

  it(
    'min_requests: fewer calls than the guard count as ' + 'no data; warning_threshold warns without notifying',
    async () => {
      const p = await newProject(app, t);
      await seed(app, t, p, 2, T0 - 2 * MIN, { status_code: 500 });
      const guarded = await createRule(app, t, { type: 'error_rate', threshold: 0.5, project_id: p, min_requests: 3 });
      await recordEvaluation(deps, guarded.id, at(T0));
      expect((await events(guarded.id)).map((e) => e.kind)).toEqual(['no_data']);
      await seed(app, t, p, 2, T0 + MIN);
      // 4 calls, 50 % errors → threshold 0.5 not exceeded (gt)
      await recordEvaluation(deps, guarded.id, at(T0 + 2 * MIN));
      const warn = await createRule(app, t, {
        type: 'error_rate',
        threshold: 0.6,
        warning_threshold: 0.4,
        project_id: p,
      });
      expect(await recordEvaluation(deps, warn.id, at(T0 + 2 * MIN))).toMatchObject({ events: 1, notified: 0 });
      expect((await events(warn.id)).map((e) => [e.kind, e.threshold])).toEqual([['warning', 0.4]]);
      await seed(app, t, p, 4, T0 + 2 * MIN, { status_code: 500 }); // 6 of 8 = 75 %
      expect(await recordEvaluation(deps, warn.id, at(T0 + 3 * MIN))).toMatchObject({ notified: 1 });
      expect((await states(warn.id))[0]).toMatchObject({ state: 'triggered' });
    },
  );

  it('writes an audit row per notification and skips inactive or deleted rules', async () => {
    const p = await newProject(app, t);
    await seed(app, t, p, 3, T0 - MIN);
    const rule = await createRule(app, t, { type: 'request_count', threshold: 1, project_id: p });
    await recordEvaluation(deps, rule.id, at(T0));
    const audit = await db()('audit_logs').where({ org_id: t.orgId, action: 'alert.triggered', resource_id: rule.id });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: 'system', actor_label: 'alert-evaluator' });
    expect(audit[0].after).toMatchObject({ current_value: 3, threshold: 1 });
    const read = await api(app, 'GET', `/api/v1/audit-logs?action=alert.triggered&resource_id=${rule.id}`, {
      token: t.admin.token,
      orgId: t.orgId,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual([
      expect.objectContaining({
        actor_type: 'system',
        actor_id: null,
        action: 'alert.triggered',
        resource_type: 'alert',
      }),
    ]);
    const off = await createRule(app, t, { type: 'request_count', threshold: 1, project_id: p, is_active: false });
    expect(await recordEvaluation(deps, off.id, at(T0))).toMatchObject({ skipped: 'rule inactive' });
    expect(await recordEvaluation(deps, '00000000-0000-4000-8000-000000000000', at(T0))).toMatchObject({
      skipped: 'rule not found',
    });
  });

  it(
    'the organization name is read when the delivery is ' + 'built (after a rename), then fixed in the stored body',
    async () => {
      const p = await newProject(app, t);
      await seed(app, t, p, 2, T0 - MIN);
      const rule = await createRule(app, t, { type: 'request_count', threshold: 1, project_id: p });
      await recordEvaluation(deps, rule.id, at(T0));
      const renamed = await api(app, 'PATCH', `/api/v1/organizations/${t.orgId}`, {
        token: t.admin.token,
        orgId: t.orgId,
        body: { name: 'Renamed Org' },
      });
      expect(renamed.status).toBe(200);
      const created = await db().transaction((trx) => fanOutOutbox(trx, 1000));
      const bodies = await db()('webhook_deliveries')
        .whereIn(
          'id',
          created.map((c) => c.id),
        )
        .select('body');
      const mine = bodies.map((b) => JSON.parse(b.body)).filter((b) => b.alert.id === rule.id);
      expect(mine).toHaveLength(1);
      expect(mine[0].organization).toEqual({ name: 'Renamed Org' });
    },
  );
});
