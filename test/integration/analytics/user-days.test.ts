import { foldAll } from '../../../src/analytics/fold';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from './seed';

/**
 * Ranges of several days read the daily per-user rollups for whole UTC days and hourly rows (or the
 * users' calls) at the ragged ends: ranking, totals, percentiles and unique users must equal what
 * the raw rows say (percentiles within 2 %), with some batches folded and some still pending.
 */
describe('end users over several days (daily per-user rollups)', () => {
  let app: TestApp;
  let t: SeededTenant;
  let projectId: string;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    projectId = (
      await api(app, 'POST', '/api/v1/projects', { token: t.admin.token, orgId: t.orgId, body: { name: 'days' } })
    ).body.data.id;
    const base = { orgId: t.orgId, projectId };
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // Four days, 12 users with distinct weights (no ties in the ranking), log-normal latencies.
    const rows = Array.from({ length: 2400 }, (_, i) => {
      const u = Math.floor(12 * rnd() ** 2);
      const normal = Math.sqrt(-2 * Math.log(rnd() || 1e-9)) * Math.cos(2 * Math.PI * rnd());
      const streamed = i % 4 === 0;
      return requestRow(base, {
        created_at: new Date(Date.parse('2026-06-01T00:00:00Z') + i * 144_000).toISOString(),
        user_id: `u${u}`,
        cost_usd: Math.round((0.001 + u * 0.0001 + rnd() * 0.0005) * 1e6) / 1e6,
        latency_ms: Math.round(Math.exp(6 + 0.7 * normal)),
        streamed,
        ttfb_ms: streamed ? Math.round(Math.exp(4.5 + normal / 3)) : null,
        status_code: i % 37 === 0 ? 500 : 200,
      });
    });
    await writeRows(app.database.db, rows.slice(0, 2000));
    // The last ~16 hours stay pending (not folded) until a test folds them.
    await writeRows(app.database.db, rows.slice(2000), { fold: false });
  });
  afterAll(() => app.stop());

  const stats = async (qs: string) => {
    const r = await api(app, 'GET', `/api/v1/stats?project_id=${projectId}&${qs}`, {
      token: t.admin.token,
      orgId: t.orgId,
    });
    if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  const PCT = ['latency_p50_ms', 'latency_p90_ms', 'latency_p95_ms', 'latency_p99_ms', 'ttft_p50_ms', 'ttft_p95_ms'];
  const SUMS = ['requests', 'errors', 'cost_usd', 'total_tokens', 'latency_avg_ms'];
  const near = (a: Record<string, number>, b: Record<string, number>) => {
    for (const k of SUMS) expect(a[k]).toBeCloseTo(b[k]!, 8);
    for (const k of PCT) if (b[k] !== null) expect(Math.abs(a[k]! - b[k]!) / b[k]!).toBeLessThanOrEqual(0.02);
  };
  // Ragged at both ends: 1 June 05:00 to 4 June 19:00 holds two whole UTC days.
  const range = 'from=2026-06-01T05:00:00Z&to=2026-06-04T19:00:00Z';

  it('ranks, totals and percentiles of the top users equal the raw rows, pending batches included', async () => {
    for (const order of ['cost_usd', 'requests']) {
      const qs = `${range}&granularity=hour&group_by=user&top=4&order_by=${order}`;
      const [rolled, raw] = [await stats(qs), await stats(`${qs}&source=raw`)];
      expect(rolled.source).toBe('rollup');
      expect(rolled.breakdown.items.map((i: { key: string }) => i.key)).toEqual(
        raw.breakdown.items.map((i: { key: string }) => i.key),
      );
      rolled.breakdown.items.forEach((item: Record<string, number>, i: number) => near(item, raw.breakdown.items[i]));
      near(rolled.breakdown.other, raw.breakdown.other);
      near(rolled.totals, raw.totals);
    }
  });

  it('unique users per hour, UTC day, week and local day equal the raw rows, before and after the fold', async () => {
    const check = async () => {
      for (const g of ['granularity=hour', 'granularity=day', 'granularity=week', 'granularity=day&tz=Europe/Paris']) {
        const [rolled, raw] = [await stats(`${range}&${g}`), await stats(`${range}&${g}&source=raw`)];
        expect(rolled.source).toBe('rollup');
        expect(rolled.totals.unique_users).toBe(raw.totals.unique_users);
        expect(rolled.series.map((p: { unique_users: number }) => p.unique_users)).toEqual(
          raw.series.map((p: { unique_users: number }) => p.unique_users),
        );
      }
    };
    expect(Number((await app.database.db('rollup_pending').count('* as n'))[0]!.n)).toBeGreaterThan(0);
    await check();
    await foldAll(app.database.db);
    await check();
  });

  it('rebuilding the end-user tables gives the daily rollups the fold kept', async () => {
    await foldAll(app.database.db);
    const db = app.database.db;
    const snapshot = async () =>
      (await db.raw(`select * from end_user_days where project_id = ? order by day, user_id`, [projectId])).rows;
    const kept = await snapshot();
    expect(kept.length).toBeGreaterThan(30);
    await db.raw('select rebuild_end_users()');
    expect(await snapshot()).toEqual(kept);
  });
});
