import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from './seed';

/**
 * The spans view and /users/:id read raw rows with cheaper SQL (issue 29: buckets grouped as local
 * timestamps, the two scans side by side, an index-only count of one user's sessions): the answers
 * are checked against plain SQL over the same rows.
 */
describe('spans view and one end user, against plain SQL', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());
  const get = async (path: string) => {
    const r = await api(app, 'GET', path, { token: t.admin.token, orgId: t.orgId });
    if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };

  it(
    'spans by type over days in a zone: totals, buckets ' + 'and groups equal percentile_cont and sums on the rows',
    async () => {
      const db = app.database.db;
      // 600 spans over 4 days, 3 types and untyped ones, varied durations, some errors, some with tokens.
      await db.raw(
        `insert into spans (project_id, id, trace_id, name, span_type, status, model, prompt_tokens,
                            completion_tokens, total_tokens, cost_usd, start_time, end_time, created)
       select ?, 's' || i, 't' || (i / 10), 'step-' || (i % 3), (array['llm', 'tool', 'retrieval', null])[1 + i % 4],
              case when i % 7 = 0 then 'error' else 'ok' end,
              case when i % 4 = 0 then 'gpt-4o' end, case when i % 4 = 0 then i end,
              case when i % 4 = 0 then 2 * i end, case when i % 4 = 0 then 3 * i end,
              case when i % 4 = 0 then i / 1e6 end,
              timestamptz '2026-07-01T00:00:00Z' + i * interval '9 minutes 37 seconds',
              timestamptz '2026-07-01T00:00:00Z' + i * interval '9 minutes 37 seconds'
                + ((i * 7919) % 5000) * interval '1.37 ms', true
         from generate_series(1, 600) i`,
        [t.projectId],
      );
      const from = '2026-07-01T00:00:00Z';
      const to = '2026-07-05T00:00:00Z';
      const tz = 'America/New_York';
      const query = `project_id=${t.projectId}&from=${from}&to=${to}&granularity=day&tz=${tz}&group_by=span_type`;
      const s = await get(`/api/v1/stats?view=spans&${query}&source=raw`);
      expect(s.source).toBe('raw');
      const { rows } = await db.raw(
        `select g, b, grouping(g, b) as gs, count(*)::int as count,
              count(*) filter (where status = 'error')::int as errors,
              coalesce(sum(total_tokens), 0)::int as total_tokens,
              coalesce(sum(cost_usd), 0)::float8 as cost, avg(duration_ms) as avg,
              percentile_cont(array[0.5, 0.9, 0.95, 0.99]::float8[]) within group (order by duration_ms) as p
         from (select span_type as g,
                      (extract(epoch from date_trunc('day', start_time at time zone ?) at time zone ?) * 1000)::bigint
                        as b, *
                 from spans where project_id = ? and start_time >= ? and start_time < ?) x
        group by grouping sets ((), (b), (g), (g, b))`,
        [tz, tz, t.projectId, from, to],
      );
      const r3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
      const expected = (r: Record<string, unknown>) => {
        const p = r.p as number[];
        return {
          count: r.count,
          errors: r.errors,
          total_tokens: r.total_tokens,
          cost_usd: Math.round((r.cost as number) * 1e10) / 1e10,
          duration_avg_ms: r3(Number(r.avg)),
          duration_p50_ms: r3(p[0]!),
          duration_p90_ms: r3(p[1]!),
          duration_p95_ms: r3(p[2]!),
          duration_p99_ms: r3(p[3]!),
          unique_users: null,
          unique_sessions: null,
        };
      };
      const find = (gs: number, g: string | null, b: number | null) =>
        (rows as Record<string, unknown>[]).find(
          (r) => Number(r.gs) === gs && r.g === g && (b === null || Number(r.b) === b),
        )!;
      expect(s.totals).toMatchObject(expected(find(3, null, null)));
      expect(s.series.length).toBe(5); // local days of New York touched by the UTC range
      for (const p of s.series) {
        const row = find(2, null, Date.parse(p.bucket));
        if (row) expect(p).toMatchObject(expected(row));
        else expect(p.count).toBe(0);
      }
      expect(s.breakdown.items.map((i: { key: string }) => i.key).sort()).toEqual(['llm', 'retrieval', 'tool']);
      for (const item of s.breakdown.items) {
        expect(item).toMatchObject(expected(find(1, item.key, null)));
        for (const p of item.series) {
          const row = find(0, item.key, Date.parse(p.bucket));
          if (row) expect(p).toMatchObject(expected(row));
          else expect(p.count).toBe(0);
        }
      }
    },
  );

  it("/users/:id counts the user's sessions per bucket like the raw rows", async () => {
    const base = { orgId: t.orgId, projectId: t.projectId };
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await writeRows(app.database.db, [
      ...Array.from({ length: 40 }, (_, i) =>
        requestRow(base, {
          created_at: new Date(hour - (i % 5) * 86_400_000 - i * 60_000).toISOString(),
          user_id: 'dora',
          session_id: i % 6 ? `d-s${i % 4}` : null,
        }),
      ),
      requestRow(base, { created_at: new Date(hour - 3_600_000).toISOString(), user_id: 'eve', session_id: 'd-s1' }),
    ]);
    const detail = await get('/api/v1/users/dora?granularity=day');
    const bounds = `from=${detail.stats.from}&to=${detail.stats.to}`;
    const range = `${bounds}&granularity=day&project_id=${t.projectId}&user_id=dora`;
    const raw = await get(`/api/v1/stats?${range}&source=raw`);
    expect(detail.stats.source).toBe('rollup');
    expect(detail.stats.totals).toMatchObject({
      requests: 40,
      unique_users: 1,
      unique_sessions: raw.totals.unique_sessions,
    });
    expect(raw.totals.unique_sessions).toBe(4);
    const pick = (p: { requests: number; unique_users: number; unique_sessions: number }) => [
      p.requests,
      p.unique_users,
      p.unique_sessions,
    ];
    expect(detail.stats.series.map(pick)).toEqual(raw.series.map(pick));
  });
});
