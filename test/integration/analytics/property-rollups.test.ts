import { refreshPropertyRollups } from '../../../src/analytics/property-rollups';
import { foldAll } from '../../../src/analytics/fold';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from './seed';

/**
 * Custom property rollups (migrations/024, src/analytics/property-rollups.ts): registered keys are
 * answered from the rollups with the raw rows' sums (percentiles within 2 %), through pending
 * batches, late rows, a registration racing unfolded batches, a rebuild and a key dropped.
 */
describe('custom property rollups', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  type Cell = Record<string, number | string | null | object>;
  const PCTS = ['latency_p50_ms', 'latency_p90_ms', 'latency_p95_ms', 'latency_p99_ms', 'ttft_p50_ms', 'ttft_p95_ms'];
  const UNIQ = ['unique_users', 'unique_sessions'];
  const sums = (c: Cell) =>
    Object.fromEntries(Object.entries(c).filter(([k]) => !PCTS.includes(k) && !UNIQ.includes(k) && k !== 'series'));
  /** Same sums everywhere (totals, buckets, items, other); percentiles within 2 %. */
  const expectSame = (rolled: Cell & { series: Cell[] }, raw: Cell & { series: Cell[] }) => {
    expect(sums(rolled)).toEqual(sums(raw));
    expect(rolled.series.map(sums)).toEqual(raw.series.map(sums));
    for (const k of PCTS) {
      if (raw[k] === null) expect(rolled[k]).toBeNull();
      else expect(Math.abs((rolled[k] as number) - (raw[k] as number)) / (raw[k] as number)).toBeLessThanOrEqual(0.02);
    }
  };
  const stats = async (qs: string) => {
    const r = await api(app, 'GET', `/api/v1/stats?${qs}`, { token: t.admin.token, orgId: t.orgId });
    if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  const compare = async (qs: string, source: 'rollup' | 'raw') => {
    const [rolled, raw] = [await stats(qs), await stats(`${qs}&source=raw`)];
    expect(rolled.source).toBe(source);
    expectSame(rolled.totals && { ...rolled.totals, series: rolled.series }, { ...raw.totals, series: raw.series });
    // Under a dimension's filter the rollups leave unique users to source=raw (docs/analytics.md).
    expect(rolled.totals.unique_users).toBe(
      source === 'rollup' && qs.includes('property=') ? null : raw.totals.unique_users,
    );
    if (raw.breakdown) {
      expect(rolled.breakdown.items.map((i: Cell) => i.key)).toEqual(raw.breakdown.items.map((i: Cell) => i.key));
      raw.breakdown.items.forEach((i: Cell & { series: Cell[] }, n: number) =>
        expectSame(rolled.breakdown.items[n], i),
      );
      if (raw.breakdown.other) expectSame(rolled.breakdown.other, raw.breakdown.other);
      else expect(rolled.breakdown.other).toBeNull();
    }
    return rolled;
  };

  it(
    'registers the busiest few-valued keys, backfills them ' + 'around pending batches, and answers like the raw rows',
    async () => {
      const db = app.database.db;
      const projectId = (
        await api(app, 'POST', '/api/v1/projects', { token: t.admin.token, orgId: t.orgId, body: { name: 'props' } })
      ).body.data.id as string;
      const base = { orgId: t.orgId, projectId };
      let seed = 7;
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const TIERS = ['gold', 'free', 'pro', null];
      const row = (i: number, hour: number) =>
        requestRow(base, {
          created_at: new Date(
            Date.parse('2026-06-01T00:00:00Z') + hour * 3_600_000 + Math.floor(rnd() * 3_600_000),
          ).toISOString(),
          latency_ms: Math.round(Math.exp(5 + 2 * rnd())),
          streamed: i % 3 === 0,
          ttfb_ms: i % 3 === 0 ? Math.round(30 + 300 * rnd()) : null,
          status_code: i % 11 === 0 ? 500 : 200,
          cost_usd: i % 13 === 0 ? null : Math.round(rnd() * 1e6) / 1e8,
          self_hosted: i % 13 === 0,
          cache_hit: i % 17 === 0,
          user_id: i % 5 === 0 ? null : `u${i % 7}`,
          model: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
          // tier: 3 values and absent; req: a value per call (never rolled up); some calls carry nothing.
          properties: i % 9 === 0 ? null : { ...(TIERS[i % 4] ? { tier: TIERS[i % 4]! } : {}), req: `r${i}` },
        });
      await writeRows(
        db,
        Array.from({ length: 600 }, (_, i) => row(i, i % 6)),
      );
      // Unfolded batches while the key is registered: the backfill must skip them, the fold add them.
      await writeRows(
        db,
        Array.from({ length: 120 }, (_, i) => row(1000 + i, (i % 3) + 1)),
        { fold: false },
      );
      const span = `project_id=${projectId}&from=2026-06-01T00:00:00Z&to=2026-06-01T08:00:00Z`;
      const range = `${span}&granularity=hour`;
      await compare(`${range}&group_by=property:tier`, 'raw');

      const policy = { windowMs: 10 * 86_400_000, maxValues: 5, maxKeys: 10 };
      const changes = await refreshPropertyRollups(db, Date.parse('2026-06-02T00:00:00Z'), policy);
      expect(changes.registered).toEqual([{ projectId, names: ['tier'] }]);
      expect((await refreshPropertyRollups(db, Date.parse('2026-06-02T00:00:00Z'), policy)).registered).toEqual([]);

      // Pending batches answered through the live view, then folded: the same answer, counted once.
      const before = await compare(`${range}&group_by=property:tier`, 'rollup');
      expect(before.breakdown.items.map((i: Cell) => i.key).sort()).toEqual(['free', 'gold', 'pro']);
      expect(before.breakdown.other.requests).toBeGreaterThan(0); // no tier, or no properties at all
      await foldAll(db);
      expect(await stats(`${range}&group_by=property:tier`)).toEqual(before);
      await compare(`${range}&group_by=property:tier&top=1&order_by=cost_usd`, 'rollup');
      await compare(`${range}&property=tier:gold`, 'rollup');
      await compare(`${range}&property=TIER:free&group_by=property:tier`, 'rollup');
      await compare(`${span}&granularity=day&tz=Europe/Paris&group_by=property:tier`, 'rollup');
      // 15-minute buckets: raw rows, ranked by the rollups; the same answer as source=raw.
      expect(await stats(`${span}&group_by=property:tier&top=2`)).toEqual(
        await stats(`${span}&group_by=property:tier&top=2&source=raw`),
      );
      await compare(`${range}&property=req:r5`, 'raw');
      await compare(`${range}&property=tier:gold&model=gpt-4o`, 'raw');

      // A late row (an old hour, as a replayed journal writes) and a new value, before and after the fold.
      await writeRows(db, [row(2001, 0), { ...row(2002, 2), properties: { tier: 'trial' } }], { fold: false });
      await compare(`${range}&group_by=property:tier`, 'rollup');
      await foldAll(db);
      const folded = await compare(`${range}&group_by=property:tier`, 'rollup');
      expect(folded.breakdown.items.map((i: Cell) => i.key)).toContain('trial');

      // A repair rebuild recounts the property rows too.
      const snapshot = async () =>
        (
          await db.raw(
            `select * from request_rollups where project_id = ? and dim like 'property:%' order by dim, bucket, value`,
            [projectId],
          )
        ).rows;
      const kept = await snapshot();
      expect(kept.length).toBeGreaterThan(0);
      await db.raw(`select rebuild_request_rollups('2026-06-01', '2026-06-02')`);
      expect(await snapshot()).toEqual(kept);

      // The key grows past the policy's values: dropped with its rows, answers from the raw rows again.
      await writeRows(
        db,
        ['a', 'b', 'c'].map((v) => ({ ...row(3000, 5), properties: { tier: v } })),
      );
      expect((await refreshPropertyRollups(db, Date.parse('2026-06-02T00:00:00Z'), policy)).dropped).toEqual([
        { projectId, names: ['tier'] },
      ]);
      expect(await snapshot()).toEqual([]);
      await compare(`${range}&group_by=property:tier`, 'raw');
    },
  );
});
