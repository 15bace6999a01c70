import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeReadMatrix } from '../../helpers/read-matrix';
import { requestRow, writeRows } from './seed';

/** GET /api/v1/stats on seeded rows: exact totals, zero-filled buckets, breakdowns, zones, and rollups vs raw. */
describe('GET /api/v1/stats', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
  });
  afterAll(() => app.stop());

  const newProject = async () =>
    (
      await api(app, 'POST', '/api/v1/projects', {
        token: t.admin.token,
        orgId: t.orgId,
        body: { name: `p${Math.random()}` },
      })
    ).body.data.id as string;
  const stats = async (qs: string, token = t.admin.token) => {
    const r = await api(app, 'GET', `/api/v1/stats?${qs}`, { token, orgId: t.orgId });
    if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  const at = (iso: string) => new Date(iso).toISOString();

  it(
    'totals, hourly buckets (empty ones zero-filled), ' + 'self-hosted apart, cache savings; rollups equal raw',
    async () => {
      const projectId = await newProject();
      const base = { orgId: t.orgId, projectId };
      await writeRows(app.database.db, [
        requestRow(base, {
          created_at: at('2026-03-02T10:05:00Z'),
          cost_usd: 0.002,
          latency_ms: 100,
          user_id: 'u1',
          session_id: 's1',
        }),
        requestRow(base, {
          created_at: at('2026-03-02T10:55:00Z'),
          cost_usd: 0.004,
          latency_ms: 300,
          user_id: 'u2',
          session_id: 's1',
          status_code: 500,
        }),
        requestRow(base, {
          created_at: at('2026-03-02T12:30:00Z'),
          cost_usd: null,
          self_hosted: true,
          provider: 'ollama',
          model: 'llama3',
          latency_ms: 50,
          user_id: 'u1',
        }),
        requestRow(base, {
          created_at: at('2026-03-02T12:31:00Z'),
          cost_usd: 0,
          cache_hit: true,
          cost_saved_usd: 0.003,
          latency_ms: 2,
        }),
        requestRow(base, {
          created_at: at('2026-03-02T12:40:00Z'),
          cost_usd: 0.001,
          streamed: true,
          ttfb_ms: 40,
          latency_ms: 200,
        }),
      ]);
      const qs = `project_id=${projectId}&from=2026-03-02T10:00:00Z&to=2026-03-02T14:00:00Z&granularity=hour`;
      const rolled = await stats(qs);
      const raw = await stats(`${qs}&source=raw`);
      expect(rolled.source).toBe('rollup');
      expect(raw.source).toBe('raw');
      expect(rolled.series.map((p: { bucket: string }) => p.bucket)).toEqual([
        '2026-03-02T10:00:00.000Z',
        '2026-03-02T11:00:00.000Z',
        '2026-03-02T12:00:00.000Z',
        '2026-03-02T13:00:00.000Z',
      ]);
      expect(rolled.series.map((p: { requests: number }) => p.requests)).toEqual([2, 0, 3, 0]);
      expect(rolled.totals).toMatchObject({
        requests: 5,
        errors: 1,
        error_rate: 0.2,
        cost_usd: 0.007,
        self_hosted_requests: 1,
        unpriced_requests: 0,
        cache_hits: 1,
        cache_saved_usd: 0.003,
        prompt_tokens: 50,
        total_tokens: 75,
        unique_users: 2,
        unique_sessions: null,
        latency_avg_ms: 130.4,
        ttft_p50_ms: 40,
      });
      const {
        latency_p50_ms: _p50,
        latency_p90_ms: _p90,
        latency_p95_ms: _p95,
        latency_p99_ms: _p99,
        ...rolledSums
      } = rolled.totals;
      expect(raw.totals).toMatchObject({ ...rolledSums, unique_sessions: 1, latency_p50_ms: 100 });
      for (const k of ['latency_p50_ms', 'latency_p90_ms', 'latency_p95_ms', 'latency_p99_ms'] as const) {
        expect(Math.abs(rolled.totals[k] - raw.totals[k]) / raw.totals[k]).toBeLessThanOrEqual(0.02);
      }
      const {
        latency_p50_ms: _a,
        latency_p90_ms: _b,
        latency_p95_ms: _c,
        latency_p99_ms: _d,
        unique_sessions: _e,
        ...sumsOnly
      } = raw.series[2];
      expect(rolled.series[2]).toMatchObject(sumsOnly);
      expect(rolled.series.map((p: { unique_users: number }) => p.unique_users)).toEqual([2, 0, 1, 0]);
      expect(rolled.series[1]).toMatchObject({ requests: 0, cost_usd: 0, latency_p50_ms: null, unique_users: 0 });
    },
  );

  it('day buckets follow local midnight across a DST change (25-hour day)', async () => {
    const projectId = await newProject();
    const base = { orgId: t.orgId, projectId };
    // America/New_York leaves DST on 2026-11-01: that local day is 25 hours long.
    await writeRows(app.database.db, [
      requestRow(base, { created_at: at('2026-10-31T03:59:00Z') }), // Oct 30, 23:59 EDT
      requestRow(base, { created_at: at('2026-11-01T04:00:00Z') }), // Nov 1, 00:00 EDT
      requestRow(base, { created_at: at('2026-11-02T04:30:00Z') }), // Nov 1, 23:30 EST
      requestRow(base, { created_at: at('2026-11-02T05:00:00Z') }), // Nov 2, 00:00 EST
    ]);
    for (const source of ['auto', 'raw']) {
      const s = await stats(
        `project_id=${projectId}&from=2026-10-31T04:00:00Z&to=2026-11-03T05:00:00Z` +
          `&granularity=day&tz=America/New_York&source=${source}`,
      );
      expect(s.series.map((p: { bucket: string; requests: number }) => [p.bucket, p.requests])).toEqual([
        ['2026-10-31T04:00:00.000Z', 0],
        ['2026-11-01T04:00:00.000Z', 2],
        ['2026-11-02T05:00:00.000Z', 1],
      ]);
      expect(s.totals.requests).toBe(3);
    }
  });

  it('groups by model (top N and other) and by a custom property; filters by a custom property', async () => {
    const projectId = await newProject();
    const base = { orgId: t.orgId, projectId };
    const when = at('2026-03-05T08:15:00Z');
    await writeRows(app.database.db, [
      ...Array.from({ length: 3 }, () =>
        requestRow(base, { created_at: when, model: 'gpt-4o', cost_usd: 0.01, properties: { tier: 'gold' } }),
      ),
      ...Array.from({ length: 2 }, () =>
        requestRow(base, { created_at: when, model: 'gpt-4o-mini', cost_usd: 0.001, properties: { tier: 'free' } }),
      ),
      requestRow(base, { created_at: when, model: 'o3', cost_usd: 0.05 }),
    ]);
    const range = `project_id=${projectId}&from=2026-03-05T08:00:00Z&to=2026-03-05T09:00:00Z&granularity=hour`;
    const byModel = await stats(`${range}&group_by=model&top=1`);
    expect(byModel.source).toBe('rollup');
    expect(byModel.breakdown.items.map((i: { key: string; requests: number }) => [i.key, i.requests])).toEqual([
      ['gpt-4o', 3],
    ]);
    expect(byModel.breakdown.other).toMatchObject({ requests: 3, cost_usd: 0.052 });
    const byCost = await stats(`${range}&group_by=model&top=1&order_by=cost_usd&source=raw`);
    expect(byCost.breakdown.items[0]).toMatchObject({ key: 'o3', requests: 1, cost_usd: 0.05 });
    expect(byCost.breakdown.other).toMatchObject({ requests: 5, cost_usd: 0.032 });
    const byTier = await stats(`${range}&group_by=property:tier`);
    expect(byTier.source).toBe('raw');
    expect(byTier.breakdown.items.map((i: { key: string; requests: number }) => [i.key, i.requests])).toEqual([
      ['gold', 3],
      ['free', 2],
    ]);
    expect(byTier.breakdown.other).toMatchObject({ requests: 1 }); // the call without the property
    const gold = await stats(`${range}&property=TIER:gold`);
    expect(gold.totals).toMatchObject({ requests: 3, cost_usd: 0.03 });
    const listed = await api(
      app,
      'GET',
      `/api/v1/requests?${range.replace('&granularity=hour', '')}&property=tier:free`,
      { token: t.admin.token, orgId: t.orgId },
    );
    expect(listed.body.data).toHaveLength(2);
  });

  it('percentiles from rollups stay within 2 % of percentile_cont on the raw rows', async () => {
    const projectId = await newProject();
    const base = { orgId: t.orgId, projectId };
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const rows = Array.from({ length: 3000 }, (_, i) => {
      const normal = Math.sqrt(-2 * Math.log(rnd() || 1e-9)) * Math.cos(2 * Math.PI * rnd());
      return requestRow(base, {
        created_at: new Date(Date.parse('2026-04-01T00:00:00Z') + i * 28_000).toISOString(),
        latency_ms: Math.round(Math.exp(6.5 + normal)),
        streamed: i % 3 === 0,
        ttfb_ms: i % 3 === 0 ? Math.round(Math.exp(5 + normal / 2)) : null,
      });
    });
    await writeRows(app.database.db, rows);
    const qs = `project_id=${projectId}&from=2026-04-01T00:00:00Z&to=2026-04-02T00:00:00Z&granularity=hour`;
    const [rolled, raw] = [await stats(qs), await stats(`${qs}&source=raw`)];
    const keys = ['latency_p50_ms', 'latency_p90_ms', 'latency_p95_ms', 'latency_p99_ms', 'ttft_p50_ms', 'ttft_p95_ms'];
    const cells = [
      [rolled.totals, raw.totals],
      ...rolled.series.map((p: object, i: number) => [p, raw.series[i]]),
    ].filter(([, r]) => r.requests > 0);
    expect(cells.length).toBeGreaterThan(20);
    for (const [r, x] of cells)
      for (const k of keys) if (x[k] !== null) expect(Math.abs(r[k] - x[k]) / x[k]).toBeLessThanOrEqual(0.02);
  });

  it('rebuilding the rollups from the raw rows (backfill, repair) gives what the writer kept', async () => {
    const db = app.database.db;
    const snapshot = async () =>
      (
        await db.raw(
          `select * from request_rollups where bucket >= '2026-03-01' and bucket < '2026-04-03'
            order by project_id, dim, value, bucket`,
        )
      ).rows;
    const kept = await snapshot();
    expect(kept.length).toBeGreaterThan(100);
    await db.raw(`select rebuild_request_rollups('2026-03-01', '2026-04-03')`);
    expect(await snapshot()).toEqual(kept);
  });

  it('refuses bad input with a clear 400', async () => {
    const bad = async (qs: string, code: string) => {
      const r = await api(app, 'GET', `/api/v1/stats?${qs}`, { token: t.admin.token, orgId: t.orgId });
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code });
    };
    await bad('tz=Mars/Olympus', 'invalid_time_zone');
    await bad('from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&granularity=minute', 'too_many_buckets');
    await bad('from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'invalid_range');
    await bad('group_by=span_type', 'invalid_group_by');
    await bad('view=spans&provider=openai', 'filter_not_supported');
    await bad('property=nocolon', 'validation_error');
  });

  describe('role matrix', () => {
    describeReadMatrix(
      () => ({ app, t, other }),
      [{ name: 'GET /api/v1/stats', method: 'GET', path: () => '/api/v1/stats' }],
    );
  });
});
