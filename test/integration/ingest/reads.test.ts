import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

/** GET /api/v1/traces filters and keyset pagination; sessions grouping traces and proxied requests. */
describe('trace and session reads', () => {
  let app: TestApp;
  let t: SeededTenant;
  const base = Date.parse('2026-07-01T00:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    // 30 traces, one per minute: alternate statuses, 3 users, 3 sessions, durations i*100 ms
    const operations = [];
    for (let i = 0; i < 30; i++) {
      const id = `tr-${String(i).padStart(2, '0')}`;
      operations.push({
        op: 'trace.create',
        id,
        body: {
          name: i % 2 ? 'odd-agent' : 'even-agent',
          user_id: `user-${i % 3}`,
          session_id: `sess-${i % 3}`,
          start_time: iso(base + i * 60_000),
          input: { turn: i },
          ...(i < 25
            ? { end_time: iso(base + i * 60_000 + i * 100), status: i % 5 === 0 ? 'error' : 'completed' }
            : {}),
        },
      });
      operations.push({
        op: 'span.create',
        id: `${id}-llm`,
        body: {
          trace_id: id,
          name: 'llm',
          span_type: 'llm',
          model: 'gpt-4o-mini',
          prompt_tokens: 100,
          completion_tokens: 10,
          start_time: iso(base + i * 60_000),
          end_time: iso(base + i * 60_000 + 5),
        },
      });
    }
    const r = await api(app, 'POST', '/ingest/batch', { token: t.fullKey, body: { operations } });
    expect(r.status).toBe(200);
  });
  afterAll(() => app.stop());

  const list = async (qs: string) => {
    const r = await api(app, 'GET', `/api/v1/traces?${qs}`, { token: t.publicKey });
    expect(r.status).toBe(200);
    return r.body as unknown as {
      data: { id: string; status: string; duration_ms: number | null; user_id: string; total_tokens: number }[];
      next_cursor: string | null;
    };
  };
  const ids = (d: { id: string }[]) => d.map((x) => x.id);

  it('lists newest first with span totals', async () => {
    const page = await list('limit=3');
    expect(ids(page.data)).toEqual(['tr-29', 'tr-28', 'tr-27']);
    expect(page.data[0]).toMatchObject({ status: 'running', span_count: 1, total_tokens: 110, prompt_tokens: 100 });
    expect(page.data[0]).not.toHaveProperty('input');
  });

  it('pages through everything with the cursor, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...ids(page.data));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => `tr-${String(29 - i).padStart(2, '0')}`));
  });

  it('filters by status, name, user, session, time range and minimum duration', async () => {
    expect(ids((await list('status=error&limit=100')).data)).toEqual(['tr-20', 'tr-15', 'tr-10', 'tr-05', 'tr-00']);
    expect((await list('status=running&limit=100')).data).toHaveLength(5);
    expect((await list('name=odd-agent&limit=100')).data).toHaveLength(15);
    expect((await list('user_id=user-1&limit=100')).data.every((x) => x.user_id === 'user-1')).toBe(true);
    expect(ids((await list('session_id=sess-2&limit=4')).data)).toEqual(['tr-29', 'tr-26', 'tr-23', 'tr-20']);
    expect(ids((await list(`from=${iso(base + 10 * 60_000)}&to=${iso(base + 13 * 60_000)}`)).data)).toEqual([
      'tr-12',
      'tr-11',
      'tr-10',
    ]);
    expect(ids((await list('min_duration_ms=2200&limit=100')).data)).toEqual(['tr-24', 'tr-23', 'tr-22']);
    expect(ids((await list('status=completed&user_id=user-0&min_duration_ms=1000&limit=100')).data)).toEqual([
      'tr-24',
      'tr-21',
      'tr-18',
      'tr-12',
    ]);
  });

  it('refuses bad filters and foreign cursors with 400', async () => {
    for (const qs of ['status=done', 'from=yesterday', 'limit=0', 'limit=1000', 'min_duration_ms=-1', 'cursor=abc']) {
      const r = await api(app, 'GET', `/api/v1/traces?${qs}`, { token: t.fullKey });
      expect({ qs, status: r.status }).toEqual({ qs, status: 400 });
    }
  });

  it('returns one trace with flat spans and the tree; 404 for unknown ids', async () => {
    const r = await api(app, 'GET', '/api/v1/traces/tr-03', { token: t.fullKey });
    expect(
      r.body.data.spans.map((s: { id: string; parent_span_id: string | null; name: string; span_type: string }) => [
        s.id,
        s.parent_span_id,
        s.name,
        s.span_type,
      ]),
    ).toEqual([['tr-03-llm', null, 'llm', 'llm']]);
    expect(r.body.data.tree).toEqual([expect.objectContaining({ id: 'tr-03-llm', children: [] })]);
    expect((await api(app, 'GET', '/api/v1/traces/nope', { token: t.fullKey })).status).toBe(404);
  });

  describe('sessions', () => {
    beforeAll(async () => {
      // Proxied calls of session sess-0: one linked to trace tr-00's llm span (counted once), one not linked.
      const rows = [
        {
          session_id: 'sess-0',
          trace_id: 'tr-00',
          span_id: 'tr-00-llm',
          total_tokens: 110,
          prompt_tokens: 100,
          completion_tokens: 10,
          cost_usd: 0.5,
          created_at: iso(base + 1000),
        },
        {
          session_id: 'sess-0',
          trace_id: null,
          span_id: null,
          total_tokens: 50,
          prompt_tokens: 40,
          completion_tokens: 10,
          cost_usd: 0.25,
          created_at: iso(base + 40 * 60_000),
        },
        {
          session_id: 'only-requests',
          trace_id: null,
          span_id: null,
          total_tokens: 7,
          prompt_tokens: 5,
          completion_tokens: 2,
          cost_usd: 0.01,
          created_at: iso(base + 50 * 60_000),
        },
      ];
      await app.database.db('requests').insert(
        rows.map((r) => ({
          ...r,
          org_id: t.orgId,
          project_id: t.projectId,
          provider: 'openai',
          model: 'gpt-4o-mini',
          path: '/v1/chat/completions',
          latency_ms: 100,
          status_code: 200,
          user_id: 'user-0',
        })),
      );
    });

    const asViewer = () => ({ token: t.viewer.token, orgId: t.orgId });

    it('groups traces and proxied requests by session, newest activity first, with totals', async () => {
      const r = await api(app, 'GET', '/api/v1/sessions', asViewer());
      expect(r.status).toBe(200);
      type Totals = { total_tokens: number; cost_usd: number };
      const sessions = r.body.data as (Record<string, unknown> & { breakdown: { requests: Totals; spans: Totals } })[];
      expect(sessions.map((s) => s.id)).toEqual(['only-requests', 'sess-0', 'sess-2', 'sess-1']);
      const s0 = sessions.find((s) => s.id === 'sess-0')!;
      // 10 traces x 110 span tokens, minus the span a request is linked to, plus both requests
      expect(s0).toMatchObject({
        trace_count: 10,
        request_count: 2,
        user_id: 'user-0',
        total_tokens: 9 * 110 + 110 + 50,
      });
      expect(s0.breakdown.requests).toMatchObject({ total_tokens: 160, cost_usd: 0.75 });
      expect(s0.breakdown.spans.total_tokens).toBe(990);
      expect(s0.cost_usd).toBeCloseTo(0.75 + s0.breakdown.spans.cost_usd, 8);
      expect(s0.first_seen_at).toBe(iso(base));
      expect(s0.last_seen_at).toBe(iso(base + 40 * 60_000));
      expect(s0.duration_ms).toBe(40 * 60_000);
      expect(sessions.find((s) => s.id === 'only-requests')).toMatchObject({
        trace_count: 0,
        request_count: 1,
        total_tokens: 7,
      });
    });

    it('pages sessions with a cursor and filters by user', async () => {
      const first = await api(app, 'GET', '/api/v1/sessions?limit=2', asViewer());
      expect(first.body.data.map((s: { id: string }) => s.id)).toEqual(['only-requests', 'sess-0']);
      const second = await api(app, 'GET', `/api/v1/sessions?limit=2&cursor=${first.body.next_cursor}`, asViewer());
      expect(second.body.data.map((s: { id: string }) => s.id)).toEqual(['sess-2', 'sess-1']);
      expect(second.body.next_cursor).toBeNull();
      const byUser = await api(app, 'GET', '/api/v1/sessions?user_id=user-1', asViewer());
      expect(byUser.body.data.map((s: { id: string }) => s.id)).toEqual(['sess-1']);
    });

    it('returns one session with its traces and requests', async () => {
      const r = await api(app, 'GET', '/api/v1/sessions/sess-0', asViewer());
      expect(r.status).toBe(200);
      expect(r.body.data.traces.map((x: { id: string }) => x.id)).toEqual([
        'tr-00',
        'tr-03',
        'tr-06',
        'tr-09',
        'tr-12',
        'tr-15',
        'tr-18',
        'tr-21',
        'tr-24',
        'tr-27',
      ]);
      expect(r.body.data.requests).toHaveLength(2);
      expect(r.body.data.requests[0]).toMatchObject({ trace_id: 'tr-00', span_id: 'tr-00-llm', cost_usd: 0.5 });
      expect(r.body.data.total_tokens).toBe(1150);
      expect(r.body.data.traces[0]).not.toHaveProperty('input');
      // include_bodies: each trace's input and output, the conversation itself
      const full = await api(app, 'GET', '/api/v1/sessions/sess-0?include_bodies=true', asViewer());
      expect(full.body.data.traces.slice(0, 2)).toEqual([
        expect.objectContaining({ id: 'tr-00', input: { turn: 0 }, output: null }),
        expect.objectContaining({ id: 'tr-03', input: { turn: 3 } }),
      ]);
      expect((await api(app, 'GET', '/api/v1/sessions/unknown', asViewer())).status).toBe(404);
    });
  });
});
