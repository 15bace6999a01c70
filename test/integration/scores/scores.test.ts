import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import { seedFixture, seedForeign, type Fixture } from './setup';

/**
 * Score configs and scores: validation against configs, targets, idempotent ids, reads, auth.
 * Each test seeds its own tenant (a request in session `sess-1`, a trace with span `sp-1`), so any one
 * runs alone; only the foreign tenant, which nothing writes to, is shared. The role matrix is in
 * scores-matrix.test.ts.
 */
describe('scores and score configs', () => {
  let app: TestApp;
  let other: SeededTenant;
  let foreignRequest: string;
  // The tenant the test at hand works in (set by `use`).
  let t: SeededTenant;
  let requestId: string;
  let traceId: string;
  const admin = () => ({ token: t.admin.token, orgId: t.orgId });
  const config = async (body: Record<string, unknown>) =>
    api(app, 'POST', '/api/v1/score-configs', { ...admin(), body });
  const score = async (body: Record<string, unknown>, token = t.fullKey) =>
    api(app, 'POST', '/api/v1/scores', { token, body });

  const fixture = () => seedFixture(app);
  const use = (f: Fixture) => ({ t, requestId, traceId } = f);
  /** The two configs the score tests check against. */
  const seedConfigs = async () => {
    expect((await config({ name: 'quality', data_type: 'numeric', min: 0, max: 1 })).status).toBe(201);
    expect(
      (
        await config({
          name: 'tone',
          data_type: 'categorical',
          categories: [
            { label: 'rude', value: 0 },
            { label: 'polite', value: 1 },
          ],
        })
      ).status,
    ).toBe(201);
  };
  /**
   * The five scores the read tests list: quality and label on the request, tone on the trace, helpful on the span,
   * resolved on the session.
   */
  const seedScores = async () => {
    await seedConfigs();
    const configs = Object.fromEntries(
      (await api(app, 'GET', '/api/v1/score-configs', admin())).body.data.map((c: { name: string; id: string }) => [
        c.name,
        c.id,
      ]),
    );
    for (const body of [
      { config_id: configs.tone, string_value: 'polite', trace_id: traceId, comment: 'nice' },
      { config_id: configs.quality, value: 0.9, request_id: requestId },
      { name: 'helpful', value: 1, data_type: 'boolean', trace_id: traceId, span_id: 'sp-1' },
      { name: 'resolved', string_value: 'false', data_type: 'boolean', session_id: 'sess-1' },
      { name: 'label', string_value: 'free text', request_id: requestId },
    ])
      expect((await score(body)).status).toBe(201);
  };

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    ({ other, foreignRequest } = await seedForeign(app));
  });
  afterAll(() => app?.stop());

  it('configs: shapes are checked, names unique among live configs, archiving frees the name', async () => {
    use(await fixture());
    const bad: [Record<string, unknown>, number, string][] = [
      [{ name: 'c', data_type: 'categorical' }, 400, 'invalid_config'],
      [{ name: 'c', data_type: 'boolean', min: 0 }, 400, 'invalid_config'],
      [{ name: 'c', data_type: 'numeric', min: 2, max: 1 }, 400, 'invalid_config'],
      [{ name: 'c', data_type: 'numeric', categories: [{ label: 'a', value: 1 }] }, 400, 'invalid_config'],
      [
        {
          name: 'c',
          data_type: 'categorical',
          categories: [
            { label: 'a', value: 1 },
            { label: 'a', value: 2 },
          ],
        },
        400,
        'validation_error',
      ],
      [{ name: 'c', data_type: 'text' }, 400, 'validation_error'],
    ];
    for (const [body, status, code] of bad)
      expect(await config(body)).toMatchObject({ status, body: { success: false, code } });
    expect((await config({ name: 'quality', data_type: 'numeric', min: 0, max: 1 })).status).toBe(201);
    expect(await config({ name: 'quality', data_type: 'boolean' })).toMatchObject({
      status: 409,
      body: { code: 'score_config_exists' },
    });
    const old = (await config({ name: 'tone', data_type: 'boolean' })).body.data;
    expect(
      (await api(app, 'PATCH', `/api/v1/score-configs/${old.id}`, { ...admin(), body: { is_archived: true } })).body
        .data.is_archived,
    ).toBe(true);
    expect(
      (
        await config({
          name: 'tone',
          data_type: 'categorical',
          categories: [
            { label: 'rude', value: 0 },
            { label: 'polite', value: 1 },
          ],
        })
      ).status,
    ).toBe(201);
    const listed = (await api(app, 'GET', '/api/v1/score-configs', admin())).body.data;
    expect(listed.map((c: { name: string; data_type: string }) => [c.name, c.data_type])).toEqual([
      ['quality', 'numeric'],
      ['tone', 'categorical'],
    ]);
    expect((await api(app, 'GET', '/api/v1/score-configs?include_archived=true', admin())).body.data).toHaveLength(3);
    expect(
      (await app.database.db('audit_logs').where({ resource_id: old.id }).orderBy('created_at')).map((a) => a.action),
    ).toEqual(['score_config.created', 'score_config.updated']);
  });

  it('scores: checked against their config, both value columns filled, idempotent by id', async () => {
    use(await fixture());
    await seedConfigs();
    const configs = Object.fromEntries(
      (await api(app, 'GET', '/api/v1/score-configs', admin())).body.data.map((c: { name: string; id: string }) => [
        c.name,
        c.id,
      ]),
    );
    expect(await score({ config_id: configs.quality, value: 1.5, request_id: requestId })).toMatchObject({
      status: 400,
      body: { code: 'invalid_score_value' },
    });
    expect(await score({ config_id: configs.tone, string_value: 'snarky', request_id: requestId })).toMatchObject({
      status: 400,
      body: { code: 'invalid_score_value' },
    });
    expect(await score({ config_id: configs.tone, name: 'other', value: 1, request_id: requestId })).toMatchObject({
      status: 400,
      body: { code: 'score_name_mismatch' },
    });
    const polite = await score({ config_id: configs.tone, string_value: 'polite', trace_id: traceId, comment: 'nice' });
    expect(polite).toMatchObject({
      status: 201,
      body: {
        data: {
          name: 'tone',
          data_type: 'categorical',
          value: 1,
          string_value: 'polite',
          source: 'api',
          target_type: 'trace',
          created_by: expect.stringMatching(/^api_key:/),
        },
      },
    });
    const id = randomUUID();
    expect((await score({ id, config_id: configs.quality, value: 0.4, request_id: requestId })).status).toBe(201);
    const again = await score({ id, config_id: configs.quality, value: 0.9, request_id: requestId });
    expect(again).toMatchObject({ status: 200, body: { data: { id, value: 0.9 } } });
    expect(await app.database.db('scores').where({ id })).toHaveLength(1);
    expect(await score({ id, name: 'x', value: 1, request_id: foreignRequest }, other.fullKey)).toMatchObject({
      status: 409,
      body: { code: 'score_id_conflict' },
    });
    expect(
      (await score({ name: 'helpful', value: 1, data_type: 'boolean', trace_id: traceId, span_id: 'sp-1' })).body.data,
    ).toMatchObject({ target_type: 'span', value: 1, string_value: 'true' });
    expect(
      (await score({ name: 'resolved', string_value: 'false', data_type: 'boolean', session_id: 'sess-1' })).body.data,
    ).toMatchObject({ target_type: 'session', value: 0 });
    expect((await score({ name: 'label', string_value: 'free text', request_id: requestId })).body.data).toMatchObject({
      data_type: 'categorical',
      value: null,
    });
    // Targets must exist in the caller's projects.
    expect((await score({ name: 'q', value: 1, request_id: foreignRequest })).status).toBe(404);
    expect((await score({ name: 'q', value: 1, trace_id: 'nope' })).status).toBe(404);
    expect((await score({ name: 'q', value: 1, trace_id: traceId, span_id: 'nope' })).status).toBe(404);
    expect((await score({ name: 'q', value: 1, session_id: 'nope' })).status).toBe(404);
    expect((await score({ name: 'q', value: 1, request_id: requestId, trace_id: traceId })).status).toBe(400);
    expect((await score({ name: 'q', request_id: requestId })).status).toBe(400);
    // A config in use keeps its shape and cannot be deleted; archived, it takes no new scores.
    expect(
      (await api(app, 'PATCH', `/api/v1/score-configs/${configs.quality}`, { ...admin(), body: { max: 10 } })).body
        .code,
    ).toBe('score_config_in_use');
    expect((await api(app, 'DELETE', `/api/v1/score-configs/${configs.quality}`, admin())).body.code).toBe(
      'score_config_in_use',
    );
    await api(app, 'PATCH', `/api/v1/score-configs/${configs.quality}`, { ...admin(), body: { is_archived: true } });
    expect((await score({ config_id: configs.quality, value: 0.5, request_id: requestId })).body.code).toBe(
      'score_config_archived',
    );
  });

  describe('reads', () => {
    let seeded: Fixture;
    beforeAll(async () => {
      use((seeded = await fixture()));
      await seedScores();
    });
    beforeEach(() => use(seeded));

    it('scores show on the request and trace reads, and list with filters and a cursor', async () => {
      const req = (await api(app, 'GET', `/api/v1/requests/${requestId}`, admin())).body.data;
      expect(req.scores.map((s: { name: string }) => s.name).sort()).toEqual(['label', 'quality']);
      const trace = (await api(app, 'GET', `/api/v1/traces/${traceId}`, admin())).body.data;
      expect(trace.scores.map((s: { name: string; target_type: string }) => [s.name, s.target_type]).sort()).toEqual([
        ['helpful', 'span'],
        ['tone', 'trace'],
      ]);
      const all = (await api(app, 'GET', '/api/v1/scores?limit=200', admin())).body.data;
      expect(all).toHaveLength(5);
      const p1 = await api(app, 'GET', '/api/v1/scores?limit=3', admin());
      const p2 = await api(
        app,
        'GET',
        `/api/v1/scores?limit=3&cursor=${encodeURIComponent(String(p1.body.next_cursor))}`,
        admin(),
      );
      expect([...p1.body.data, ...p2.body.data].map((s: { id: string }) => s.id)).toEqual(
        all.map((s: { id: string }) => s.id),
      );
      expect(
        (await api(app, 'GET', `/api/v1/scores?trace_id=${traceId}&target_type=span`, admin())).body.data.map(
          (s: { name: string }) => s.name,
        ),
      ).toEqual(['helpful']);
      expect(
        (await api(app, 'GET', '/api/v1/scores?data_type=boolean', { token: t.publicKey })).body.data,
      ).toHaveLength(2);
      expect((await api(app, 'GET', '/api/v1/scores', { token: other.fullKey })).body.data).toEqual([]);
    });

    it('are a view of /stats: count, average and label distribution per name over time', async () => {
      const hour = 3_600_000;
      const from = new Date(Math.floor(Date.now() / hour) * hour - hour).toISOString();
      const to = new Date(Math.ceil(Date.now() / hour) * hour + hour).toISOString();
      const range = `from=${from}&to=${to}&granularity=hour`;
      const st = (await api(app, 'GET', `/api/v1/stats?view=scores&group_by=name&${range}`, admin())).body.data;
      expect(st).toMatchObject({ view: 'scores', source: 'raw', totals: { count: 5 } });
      expect(st.series).toHaveLength(3);
      expect(st.series.reduce((n: number, b: { count: number }) => n + b.count, 0)).toBe(5);
      const by = Object.fromEntries(st.breakdown.items.map((i: { key: string }) => [i.key, i]));
      expect(by.quality).toMatchObject({ count: 1, value_avg: 0.9, value_min: 0.9, value_max: 0.9, distribution: {} });
      expect(by.tone).toMatchObject({ count: 1, value_avg: null, distribution: { polite: 1 } });
      expect(by.helpful).toMatchObject({ distribution: { true: 1 } });
      expect(by.resolved).toMatchObject({ distribution: { false: 1 } });
      const one = (await api(app, 'GET', `/api/v1/stats?view=scores&name=quality&${range}`, admin())).body.data;
      expect(one.totals).toMatchObject({ count: 1, value_avg: 0.9 });
      expect((await api(app, 'GET', `/api/v1/stats?view=scores&model=gpt-4o&${range}`, admin())).body.code).toBe(
        'filter_not_supported',
      );
      expect((await api(app, 'GET', `/api/v1/stats?view=scores&group_by=model&${range}`, admin())).body.code).toBe(
        'invalid_group_by',
      );
    });
  });
});
