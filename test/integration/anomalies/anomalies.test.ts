import { randomUUID } from 'node:crypto';
import { createPgAnalytics } from '../../../src/analytics/store';
import { detectAnomalies } from '../../../src/anomalies/detect';
import { scheduleId } from '../../../src/temporal/schedules';
import { anomalyDetectionWorkflow } from '../../../workflows';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeReadMatrix } from '../../helpers/read-matrix';
import { requestRow, writeRows } from '../analytics/seed';
import type { RequestRow } from '../../../src/requests/row';

const H = 3_600_000;
const NOW = Date.parse('2026-07-08T12:30:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** Eight days of steady hourly traffic (20 calls an hour, 4 end users), from `hours` hours back. */
function steady(base: { orgId: string; projectId: string }, hours: number): RequestRow[] {
  const rows: RequestRow[] = [];
  for (let h = hours; h >= 2; h--) {
    for (let i = 0; i < 20; i++) {
      rows.push(
        requestRow(base, {
          created_at: iso(NOW - h * H + i * 150_000),
          latency_ms: 200 + (i % 5) * 10,
          cost_usd: 0.001,
          user_id: `steady-${i % 4}`,
        }),
      );
    }
  }
  // The last hour before the window, and the window's ordinary share.
  for (let i = 0; i < 40; i++)
    rows.push(
      requestRow(base, {
        created_at: iso(NOW - 2 * H + 60_000 + i * 179_000),
        latency_ms: 210,
        cost_usd: 0.001,
        user_id: `steady-${i % 4}`,
      }),
    );
  return rows;
}
/** 40 costly, slow calls (half failing) of a new model in the window. */
const spike = (base: { orgId: string; projectId: string }) =>
  Array.from({ length: 40 }, (_, i) =>
    requestRow(base, {
      created_at: iso(NOW - H + 30_000 + i * 80_000),
      model: 'gpt-4o',
      cost_usd: 0.05 + i / 1e4,
      latency_ms: 3000 + i,
      status_code: i % 2 ? 500 : 200,
      user_id: 'u-spike',
    }),
  );

describe('anomalies', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let flat: string;
  let thin: string;
  let synthetic: { mine: string; theirs: string };
  const detect = (at: number) =>
    detectAnomalies({ db: app.database.db, analytics: createPgAnalytics(app.database.db) }, at);
  const list = async (qs = '') =>
    (await api(app, 'GET', `/api/v1/anomalies?${qs}`, { token: t.admin.token, orgId: t.orgId })).body.data as Record<
      string,
      unknown
    >[];

  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    const project = async (name: string) =>
      (await api(app, 'POST', '/api/v1/projects', { token: t.admin.token, orgId: t.orgId, body: { name } })).body.data
        .id as string;
    [flat, thin] = [await project('flat'), await project('thin')];
    const db = app.database.db;
    const main = { orgId: t.orgId, projectId: t.projectId };
    await writeRows(db, [...steady(main, 8 * 24), ...spike(main)]);
    await writeRows(db, steady({ orgId: t.orgId, projectId: flat }, 8 * 24));
    await writeRows(db, [
      ...steady({ orgId: t.orgId, projectId: thin }, 12),
      ...spike({ orgId: t.orgId, projectId: thin }),
    ]);
    // Rows the matrix reads and changes (independent of the detector's).
    const row = (orgId: string, projectId: string) => ({
      org_id: orgId,
      project_id: projectId,
      measure: 'cost',
      dimension: 'model',
      dimension_value: `m-${randomUUID()}`,
      direction: 'up',
      expected_low: 0,
      expected_median: 1,
      expected_high: 2,
      observed: 9,
      score: 40,
      baseline: JSON.stringify({ points: 168, seasonal: true, from: iso(NOW - 7 * 24 * H), to: iso(NOW - H) }),
      window_start: iso(NOW - 2 * H),
      window_end: iso(NOW - H),
      first_seen: iso(NOW - H),
      last_seen: iso(NOW - H),
    });
    const [mine] = await db('anomalies').insert(row(t.orgId, t.projectId)).returning('id');
    const [theirs] = await db('anomalies').insert(row(other.orgId, other.projectId)).returning('id');
    synthetic = { mine: mine.id, theirs: theirs.id };
  });
  afterAll(() => app.stop());

  it(
    'finds the spike of the last hour: measure, range, score ' +
      'and the calls behind it; nothing on flat or thin data',
    async () => {
      const out = await detect(NOW);
      expect(out.projects).toBeGreaterThanOrEqual(3);
      const found = (await list(`project_id=${t.projectId}&status=open`)).filter((a) => a.id !== synthetic.mine);
      const byMeasure = Object.fromEntries(found.map((a) => [a.measure, a]));
      expect(Object.keys(byMeasure).sort()).toEqual(['cost', 'error_rate', 'latency_p95', 'requests']);
      for (const a of found)
        expect(a).toMatchObject({
          dimension: 'project',
          dimension_value: '',
          direction: 'up',
          detections: 1,
          window: { start: iso(NOW - H), end: iso(NOW) },
        });
      // Baseline: 20 calls at $0.001 an hour, same hour of day on 7 days; the window: 60 calls, $2.0980.
      expect(byMeasure.requests).toMatchObject({
        observed: 60,
        expected: { median: 20, low: 0, high: 45 },
        score: 8,
        baseline: { seasonal: true, points: 7 },
      });
      expect(byMeasure.cost).toMatchObject({ expected: { median: 0.02 } });
      expect(byMeasure.cost!.observed).toBeCloseTo(0.02 + 40 * 0.05 + 0.078, 6);
      expect(byMeasure.error_rate!.observed).toBeCloseTo(20 / 60, 6);
      expect(byMeasure.latency_p95!.observed).toBeGreaterThan(3000);
      // The costliest calls of the window: the spike's last five.
      const ids = byMeasure.cost!.sample_request_ids as string[];
      const costs = await app.database.db('requests').whereIn('id', ids).orderBy('cost_usd', 'desc').pluck('cost_usd');
      expect(costs.map(Number)).toEqual([0.0539, 0.0538, 0.0537, 0.0536, 0.0535]);
      expect(await list(`project_id=${flat}`)).toEqual([]);
      expect(await list(`project_id=${thin}`)).toEqual([]);
    },
  );

  it('acknowledging is audited; re-detection by the workflow updates the same anomaly (no duplicate)', async () => {
    const cost = (await list(`project_id=${t.projectId}&measure=cost&dimension=project`))[0]!;
    const r = await api(app, 'PATCH', `/api/v1/anomalies/${cost.id}`, {
      token: t.editor.token,
      orgId: t.orgId,
      body: { status: 'acknowledged' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'acknowledged', acknowledged_by: expect.any(String) });
    const audit = await app.database.db('audit_logs').where({ resource_id: cost.id, action: 'anomaly.acknowledged' });
    expect(audit).toHaveLength(1);

    const { client } = app.runtime.ctx.temporal;
    const out = await client.workflow.execute(anomalyDetectionWorkflow, {
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      workflowId: `anomalies-${randomUUID()}`,
      args: [iso(NOW + 5 * 60_000)],
    });
    expect(out.detected).toBeGreaterThanOrEqual(4);
    const again = (await list(`project_id=${t.projectId}&dimension=project`)).filter((a) => a.status !== 'resolved');
    expect(again).toHaveLength(4);
    const costAgain = again.find((a) => a.measure === 'cost')!;
    expect(costAgain).toMatchObject({
      id: cost.id,
      status: 'acknowledged',
      detections: 2,
      last_seen: iso(NOW + 5 * 60_000),
      first_seen: iso(NOW),
    });
  });

  it('an anomaly not detected for an hour resolves itself', async () => {
    const out = await detect(NOW + 3 * H);
    expect(out.detected).toBe(0);
    const all = (await list(`project_id=${t.projectId}&dimension=project`)).filter(
      (a) => a.measure !== 'cost' || a.dimension_value === '',
    );
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const a of all) expect(a).toMatchObject({ status: 'resolved', resolved_by: 'system' });
  });

  it('refuses bad input with a clear 400', async () => {
    const bad = await api(app, 'PATCH', `/api/v1/anomalies/${synthetic.mine}`, {
      token: t.admin.token,
      orgId: t.orgId,
      body: { status: 'open' },
    });
    expect(bad.status).toBe(400);
    expect(
      (await api(app, 'GET', '/api/v1/anomalies?measure=vibes', { token: t.admin.token, orgId: t.orgId })).status,
    ).toBe(400);
  });

  it('the worker keeps the detection schedule (every 5 minutes) on its Temporal server', async () => {
    const d = await app.runtime.ctx.temporal.client.schedule
      .getHandle(scheduleId(app.config.TEMPORAL_TASK_QUEUE, 'anomaly-detection'))
      .describe();
    expect(d.spec.intervals).toEqual([expect.objectContaining({ every: 300_000 })]);
    expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'anomalyDetectionWorkflow' });
  });

  describe('role matrix', () => {
    describeReadMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /api/v1/anomalies', method: 'GET', path: () => '/api/v1/anomalies' },
        {
          name: 'GET /api/v1/anomalies/:id',
          method: 'GET',
          path: () => `/api/v1/anomalies/${synthetic.mine}`,
          foreignPath: () => `/api/v1/anomalies/${synthetic.theirs}`,
        },
        {
          name: 'PATCH /api/v1/anomalies/:id',
          method: 'PATCH',
          write: true,
          body: { status: 'acknowledged' },
          path: () => `/api/v1/anomalies/${synthetic.mine}`,
          foreignPath: () => `/api/v1/anomalies/${synthetic.theirs}`,
        },
      ],
    );
  });
});
