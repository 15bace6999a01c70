import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeReadMatrix } from '../../helpers/read-matrix';
import { requestRow, writeRows } from './seed';

/** GET /api/v1/users and /users/:id: totals kept with the request rows, sorting, search, cursor, detail. */
describe('end users', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000).toISOString();

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    const base = { orgId: t.orgId, projectId: t.projectId };
    const rows = [];
    // alice: 3 calls ($0.03), one an error; bob: 1 call ($0.05); carol%: 2 calls ($0.002); one call without a user.
    for (let i = 0; i < 3; i++)
      rows.push(
        requestRow(base, {
          user_id: 'alice',
          session_id: i < 2 ? 'a-s1' : 'a-s2',
          model: i ? 'gpt-4o' : 'o3',
          cost_usd: 0.01,
          status_code: i === 2 ? 429 : 200,
          created_at: hour,
        }),
      );
    rows.push(requestRow(base, { user_id: 'bob', model: 'o3', cost_usd: 0.05, total_tokens: 1000, created_at: hour }));
    rows.push(...[1, 2].map(() => requestRow(base, { user_id: 'carol%', cost_usd: 0.001, created_at: hour })));
    rows.push(requestRow(base, { created_at: hour }));
    await writeRows(app.database.db, rows);
    await writeRows(app.database.db, [
      requestRow({ orgId: other.orgId, projectId: other.projectId }, { user_id: 'mallory' }),
    ]);
  });
  afterAll(() => app.stop());

  const get = (path: string, token = t.admin.token) => api(app, 'GET', path, { token, orgId: t.orgId });

  it('lists end users by cost with totals, sessions and top models; sorts, searches and pages', async () => {
    const r = await get('/api/v1/users');
    expect(r.status).toBe(200);
    expect(r.body.data.map((u: { user_id: string }) => u.user_id)).toEqual(['bob', 'alice', 'carol%']);
    const alice = r.body.data[1];
    expect(alice).toMatchObject({
      requests: 3,
      errors: 1,
      error_rate: 0.333333,
      cost_usd: 0.03,
      sessions: 2,
      traces: 0,
      rate_limit: null,
    });
    expect(alice.top_models).toEqual([
      { model: 'gpt-4o', requests: 2, cost_usd: 0.02 },
      { model: 'o3', requests: 1, cost_usd: 0.01 },
    ]);
    expect((await get('/api/v1/users?sort=requests')).body.data.map((u: { user_id: string }) => u.user_id)).toEqual([
      'alice',
      'carol%',
      'bob',
    ]);
    expect((await get('/api/v1/users?search=CAROL%25')).body.data.map((u: { user_id: string }) => u.user_id)).toEqual([
      'carol%',
    ]);
    expect((await get('/api/v1/users?search=%25')).body.data.map((u: { user_id: string }) => u.user_id)).toEqual([
      'carol%',
    ]); // % is literal
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/api/v1/users?sort=error_rate&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.data.map((u: { user_id: string }) => u.user_id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual(['alice', 'carol%', 'bob']);
    expect((await get('/api/v1/users?cursor=bogus')).body.code).toBe('invalid_cursor');
  });

  it('shows the current rate-limit window of each end user', async () => {
    await api(app, 'PUT', '/api/v1/rate-limits', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, requests_per_window: 100, window_seconds: 3600 },
    });
    await app.database.db.raw(
      `insert into rate_limit_counters (project_id, user_id, window_start, expires_at, requests, tokens)
       values (?, 'bob', to_timestamp(floor(extract(epoch from now()) / 3600) * 3600),
               now() + interval '1 hour', 7, 70)`,
      [t.projectId],
    );
    const bob = (await get('/api/v1/users?search=bob')).body.data[0];
    expect(bob.rate_limit).toMatchObject({
      requests: 7,
      tokens: 70,
      requests_limit: 100,
      tokens_limit: null,
      window_seconds: 3600,
    });
    await api(app, 'DELETE', `/api/v1/rate-limits/${t.projectId}`, { token: t.admin.token, orgId: t.orgId });
  });

  it('reads one end user with a series, the latest requests and sessions', async () => {
    const r = await get('/api/v1/users/alice?granularity=hour');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ user_id: 'alice', requests: 3 });
    expect(r.body.data.stats.totals).toMatchObject({ requests: 3, errors: 1, unique_users: 1, unique_sessions: 2 });
    expect(r.body.data.stats.series).toHaveLength(30 * 24);
    expect(r.body.data.latest_requests).toHaveLength(3);
    expect(r.body.data.latest_sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual([
      'a-s1',
      'a-s2',
    ]);
    expect((await get(`/api/v1/users/${encodeURIComponent('carol%')}`)).body.data.requests).toBe(2);
    expect((await get('/api/v1/users/nobody')).status).toBe(404);
  });

  it('counts end users seen in traces (their first trace creates them)', async () => {
    const id = `tr-${Date.now()}`;
    const ingest = (body: object) => api(app, 'POST', '/ingest/traces', { token: t.fullKey, body });
    expect((await ingest({ id, name: 'agent', user_id: 'dora', start_time: new Date().toISOString() })).status).toBe(
      201,
    );
    expect((await ingest({ id, name: 'agent', user_id: 'dora', start_time: new Date().toISOString() })).status).toBe(
      200,
    ); // a replay
    const dora = (await get('/api/v1/users?search=dora')).body.data[0];
    expect(dora).toMatchObject({ user_id: 'dora', traces: 1, requests: 0, cost_usd: 0 });
  });

  it('rebuilding the end-user tables from the raw rows and traces gives what the writers kept', async () => {
    const db = app.database.db;
    const snap = async () => ({
      users: (await db.raw('select * from end_users order by project_id, user_id')).rows,
      sessions: (await db.raw('select * from end_user_sessions order by project_id, user_id, session_id')).rows,
    });
    const kept = await snap();
    await db.raw('select rebuild_end_users()');
    expect(await snap()).toEqual(kept);
  });

  describe('role matrix', () => {
    describeReadMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /api/v1/users', method: 'GET', path: () => '/api/v1/users' },
        {
          name: 'GET /api/v1/users/:id',
          method: 'GET',
          path: () => '/api/v1/users/alice',
          foreignPath: () => '/api/v1/users/mallory',
        },
      ],
    );
  });
});
