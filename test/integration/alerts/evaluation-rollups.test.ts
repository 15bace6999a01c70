import { startTestApp, type TestApp } from '../../helpers/app';
import type { SeededTenant } from '../../helpers/auth';
import { previewEvaluation, type EvalDeps } from '../../../src/alerts/evaluate';
import { findRuleRow } from '../../../src/alerts/queries';
import { createRule, MIN, newProject, seed, seedEvaluation, T0 } from './helpers';

/** Alert evaluation's sources: a window of whole hours reads the rollups, its ragged edges the raw rows. */
describe('alert evaluation', () => {
  let app: TestApp;
  let t: SeededTenant;
  let deps: EvalDeps;
  const at = (ms: number) => new Date(ms);
  const db = () => app.runtime.ctx.db;

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    ({ t, deps } = await seedEvaluation(app));
  });
  afterAll(() => app?.stop());

  it(
    'a window of whole hours ending on the hour reads the ' + 'rollups; the same window a minute later reads raw rows',
    async () => {
      const p = await newProject(app, t);
      await seed(app, t, p, 4, T0 - 30 * MIN, { cost_usd: 0.5 });
      const rule = await findRuleRow(
        db(),
        t.orgId,
        (await createRule(app, t, { type: 'cost', threshold: 1, project_id: p, window_minutes: 60 })).id,
      );
      const onHour = await previewEvaluation(deps, rule!, at(T0));
      const offHour = await previewEvaluation(deps, rule!, at(T0 + MIN));
      expect(onHour).toMatchObject({
        source: 'rollup',
        window: { from: new Date(T0 - 60 * MIN).toISOString(), to: new Date(T0).toISOString() },
      });
      expect(offHour.source).toBe('raw');
      expect(onHour.groups).toEqual([
        expect.objectContaining({ group: '', current_value: 2, requests: 4, level: 'alert', state: 'ok' }),
      ]);
      expect(offHour.groups[0]!.current_value).toBe(2);
    },
  );

  it(
    'a window spanning whole hours reads them from the rollups ' +
      'and only its ragged edges raw (mixed), matching the raw rows',
    async () => {
      const p = await newProject(app, t);
      const lat = (i: number) => 100 + i * 37;
      for (const [offset, n] of [
        [-170, 7],
        [-150, 5],
        [-90, 11],
        [-30, 9],
        [3, 6],
      ] as const)
        await writeRowsAt(p, T0 + offset * MIN, n, lat);
      const rule = await findRuleRow(
        db(),
        t.orgId,
        (await createRule(app, t, { type: 'latency_p95', threshold: 1, project_id: p, window_minutes: 180 })).id,
      );
      const mixed = await previewEvaluation(deps, rule!, at(T0 + 7 * MIN));
      expect(mixed.source).toBe('mixed');
      const w = mixed.window;
      const raw = await deps.store.requestStats({
        projectIds: [p],
        filter: { from: w.from, to: w.to },
        from: w.from,
        to: w.to,
        granularity: { unit: 'day', step: 1, ms: 86_400_000 },
        tz: 'UTC',
        groupBy: null,
        top: 1,
        orderBy: 'requests',
        source: 'raw',
      });
      expect(mixed.groups[0]!.requests).toBe(raw.totals.requests);
      expect(raw.totals.requests).toBe(7 + 5 + 11 + 9 + 6);
      expect(
        Math.abs(mixed.groups[0]!.current_value! - raw.totals.latency_p95_ms!) / raw.totals.latency_p95_ms!,
      ).toBeLessThan(0.02);
      const cost = await findRuleRow(
        db(),
        t.orgId,
        (await createRule(app, t, { type: 'cost', threshold: 1, project_id: p, window_minutes: 180 })).id,
      );
      const c = await previewEvaluation(deps, cost!, at(T0 + 7 * MIN));
      expect(c.source).toBe('mixed');
      expect(c.groups[0]!.current_value).toBeCloseTo(raw.totals.cost_usd, 10);
    },
  );

  async function writeRowsAt(p: string, ms: number, n: number, lat: (i: number) => number) {
    for (let i = 0; i < n; i++)
      await seed(app, t, p, 1, ms + i * 1000, { latency_ms: lat(i), cost_usd: 0.001 * (i + 1) });
  }
});
