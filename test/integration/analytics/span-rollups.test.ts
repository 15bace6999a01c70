import { foldAll } from '../../../src/analytics/fold';
import { decodeIntArray } from '../../../src/analytics/histogram';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

/**
 * The spans view from the span rollups (issue 29): every answer is compared with the same question
 * asked of the raw spans (`source=raw`, itself checked against SQL in span-user-stats.test.ts), after
 * inserts, updates and deletes, before and after the fold.
 */
type Point = Record<string, number | string | null>;
const PS = ['duration_p50_ms', 'duration_p90_ms', 'duration_p95_ms', 'duration_p99_ms'];
const EXACT = ['count', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd'];

function expectClose(rollup: Point, raw: Point, where: string) {
  for (const k of EXACT) expect([where, k, rollup[k]]).toEqual([where, k, raw[k]]);
  if (raw.duration_avg_ms === null) expect(rollup.duration_avg_ms).toBeNull();
  // Both sides are rounded to the microsecond.
  else expect(Math.abs(Number(rollup.duration_avg_ms) - Number(raw.duration_avg_ms))).toBeLessThanOrEqual(0.0011);
  for (const k of PS) {
    const [a, b] = [rollup[k], raw[k]];
    if (b === null) expect([where, k, a]).toEqual([where, k, null]);
    // Whole-millisecond bins below 50 ms, 3 % bins above: within 0.5 ms or 2 %.
    else
      expect([where, k, Math.abs(Number(a) - Number(b)) <= Math.max(0.5, 0.02 * Number(b))]).toEqual([where, k, true]);
  }
}

describe('spans view from the span rollups', () => {
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
  const from = '2026-08-01T00:00:00Z';
  const to = '2026-08-04T00:00:00Z';
  /** The question asked of the rollups and of the raw spans; the two answers agree. */
  const compare = async (params: string) => {
    const q = `/api/v1/stats?view=spans&project_id=${t.projectId}&from=${from}&to=${to}&${params}`;
    const [r, raw] = await Promise.all([get(q), get(`${q}&source=raw`)]);
    expect(r.source).toBe('rollup');
    expect(raw.source).toBe('raw');
    expectClose(r.totals, raw.totals, 'totals');
    expect(r.series.map((p: Point) => p.bucket)).toEqual(raw.series.map((p: Point) => p.bucket));
    r.series.forEach((p: Point, i: number) => expectClose(p, raw.series[i], `bucket ${p.bucket}`));
    expect(r.breakdown?.items.map((i: Point) => i.key)).toEqual(raw.breakdown?.items.map((i: Point) => i.key));
    r.breakdown?.items.forEach((item: Point & { series: Point[] }, i: number) => {
      const other = raw.breakdown.items[i];
      expectClose(item, other, `group ${item.key}`);
      item.series.forEach((p, j) => expectClose(p, other.series[j], `group ${item.key} ${p.bucket}`));
    });
    return r;
  };
  const questions = [
    'granularity=hour&group_by=span_type',
    'granularity=day&tz=Asia/Tokyo&group_by=model&top=2',
    'granularity=day&tz=America/New_York&span_type=tool',
    'granularity=hour&model=gpt-4o&group_by=model',
  ];

  it('answers like the raw spans after inserts, updates and deletes, folded or not', async () => {
    const db = app.database.db;
    // 900 spans over 3 days: 4 types and untyped, 3 models and none, durations from 0.3 ms to 40 s, open spans.
    await db.raw(
      `insert into spans (project_id, id, trace_id, name, span_type, status, model, prompt_tokens,
                          completion_tokens, total_tokens, cost_usd, start_time, end_time, created)
       select ?, 'r' || i, 'rt' || (i / 30), 'step', (array['llm', 'tool', 'retrieval', 'chain', null])[1 + i % 5],
              case when i % 9 = 0 then 'error' else 'ok' end, (array['gpt-4o', 'claude', 'mini', null])[1 + i % 4],
              i % 50, 2 * (i % 50), 3 * (i % 50), (i % 50) / 1e6,
              timestamptz '2026-08-01T00:00:00Z' + i * interval '4 minutes 47 seconds',
              case when i % 31 <> 0 then timestamptz '2026-08-01T00:00:00Z' + i * interval '4 minutes 47 seconds'
                + (0.3 + power((i * 7919) % 1000, 3) / 2.5e4) * interval '1 ms' end, true
         from generate_series(1, 900) i`,
      [t.projectId],
    );
    for (const q of questions) await compare(q); // unfolded: pending deltas only
    await foldAll(db);
    expect(Number((await db.raw('select count(*) as n from span_rollup_pending')).rows[0].n)).toBe(0);
    for (const q of questions) await compare(q);

    // A span closed later, one retyped and repriced, a trace's spans deleted.
    await db.raw(
      `update spans set end_time = start_time + interval '2.5 seconds' where project_id = ? and id = 'r31'`,
      [t.projectId],
    );
    await db.raw(
      `update spans set span_type = 'agent', cost_usd = 0.5, status = 'error' where project_id = ? and id like 'r1_'`,
      [t.projectId],
    );
    await db.raw(`delete from spans where project_id = ? and trace_id = 'rt3'`, [t.projectId]);
    for (const q of questions) await compare(q); // folded rollups plus pending deltas
    await foldAll(db);
    for (const q of questions) await compare(q);
    const byType = await compare('granularity=hour&group_by=span_type');
    expect(byType.breakdown.items.find((i: Point) => i.key === 'agent')).toMatchObject({ count: 10, errors: 10 });
  });

  it("removes a key whose spans are all gone, and leaves other projects' rollups alone", async () => {
    const db = app.database.db;
    const other = await seedTenant(app);
    const insert = (project: string, id: string) =>
      db.raw(
        `insert into spans (project_id, id, trace_id, span_type, model, start_time, end_time, created)
         values (?, ?, 'gone', 'embedding', 'embed-1', '2026-08-02T10:15:00Z', '2026-08-02T10:15:01Z', true)`,
        [project, id],
      );
    await insert(t.projectId, 'e1');
    await insert(other.projectId, 'e1');
    await foldAll(db);
    await db.raw(`delete from spans where project_id = ? and id = 'e1'`, [t.projectId]);
    await foldAll(db);
    const keys = await db('span_rollups').where({ value: 'embed-1' }).select('project_id');
    expect(keys.map((k: { project_id: string }) => k.project_id)).toEqual([other.projectId]);
    const r = await compare('granularity=hour&group_by=model&top=10');
    expect(r.breakdown.items.map((i: Point) => i.key)).not.toContain('embed-1');
  });

  it('leaves to the raw spans what the rollups cannot answer', async () => {
    const base = `/api/v1/stats?view=spans&project_id=${t.projectId}`;
    const range = `from=${from}&to=${to}`;
    const raw = [
      `${range}&granularity=hour&group_by=name`, // names are not rolled up
      `${range}&granularity=hour&metadata=env:prod`,
      `${range}&granularity=hour&model=gpt-4o&group_by=span_type`, // two dimensions
      `from=2026-08-01T00:30:00Z&to=${to}&granularity=hour`, // not whole hours
      `${range}&granularity=day&tz=Asia/Kolkata`, // a half-hour offset
    ];
    for (const q of raw) expect([q, (await get(`${base}&${q}`)).source]).toEqual([q, 'raw']);
  });

  it('decodes arrays in PostgreSQL binary format', async () => {
    const { rows } = await app.database.db.raw(
      `select array_send(array[0, 3, -2, 70000]::integer[]) as a, array_send('{}'::integer[]) as e`,
    );
    expect(decodeIntArray(rows[0].a)).toEqual([0, 3, -2, 70000]);
    expect(decodeIntArray(rows[0].e)).toEqual([]);
    expect(decodeIntArray(null)).toBeNull();
  });
});
