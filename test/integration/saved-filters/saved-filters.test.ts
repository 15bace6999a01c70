import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { requestRow, writeRows } from '../analytics/seed';

/** Saved filters: ownership and visibility, and `saved_filter_id` on every list and stats route. */
describe('saved filters', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let shared: string;
  const as = (role: 'admin' | 'editor' | 'viewer') => ({ token: t[role].token, orgId: t.orgId });
  const save = (role: 'admin' | 'editor' | 'viewer', body: Record<string, unknown>) =>
    api(app, 'POST', '/api/v1/saved-filters', { ...as(role), body });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    const base = { orgId: t.orgId, projectId: t.projectId };
    await writeRows(app.database.db, [
      ...Array.from({ length: 3 }, () => requestRow(base, { model: 'gpt-4o', user_id: 'u1', session_id: 's1' })),
      ...Array.from({ length: 2 }, () => requestRow(base, { model: 'gpt-4o-mini', status_code: 500, user_id: 'u2' })),
    ]);
    const now = new Date().toISOString();
    for (const [id, name] of [
      ['t1', 'agent'],
      ['t2', 'search'],
    ])
      await api(app, 'POST', '/ingest/traces', {
        token: t.fullKey,
        body: { id, name, start_time: now, session_id: 's9' },
      });
    shared = (
      await save('editor', {
        name: 'errors',
        view: 'requests',
        filter: { status: '5xx' },
        columns: ['model', 'latency_ms'],
        sort: 'created_at',
        visibility: 'project',
      })
    ).body.data.id;
  });
  afterAll(() => app?.stop());

  it('applies on every view, explicit parameters over its own', async () => {
    const views: [string, Record<string, unknown>, string, (b: { data: unknown }) => unknown, unknown][] = [
      ['requests', { model: 'gpt-4o' }, '/api/v1/requests', (b) => (b.data as unknown[]).length, 3],
      ['traces', { name: 'agent' }, '/api/v1/traces', (b) => (b.data as { id: string }[]).map((x) => x.id), ['t1']],
      [
        'sessions',
        { from: '2020-01-01T00:00:00Z' },
        '/api/v1/sessions',
        (b) => (b.data as unknown[]).length >= 1,
        true,
      ],
      [
        'users',
        { search: 'u2' },
        '/api/v1/users',
        (b) => (b.data as { user_id: string }[]).map((x) => x.user_id),
        ['u2'],
      ],
      [
        'stats',
        { model: 'gpt-4o-mini', source: 'raw' },
        '/api/v1/stats',
        (b) => (b.data as { totals: { requests: number } }).totals.requests,
        2,
      ],
    ];
    for (const [view, filter, path, pick, want] of views) {
      const id = (await save('viewer', { name: view, view, filter })).body.data.id;
      const r = await api(app, 'GET', `${path}?saved_filter_id=${id}`, as('viewer'));
      expect([view, r.status, pick(r.body)]).toEqual([view, 200, want]);
    }
    expect((await api(app, 'GET', `/api/v1/requests?saved_filter_id=${shared}`, as('viewer'))).body.data).toHaveLength(
      2,
    );
    // An explicit parameter wins over the saved one.
    expect(
      (await api(app, 'GET', `/api/v1/requests?saved_filter_id=${shared}&status=2xx`, as('viewer'))).body.data,
    ).toHaveLength(3);
    expect((await api(app, 'GET', `/api/v1/traces?saved_filter_id=${shared}`, as('viewer'))).body.code).toBe(
      'saved_filter_view_mismatch',
    );
    expect((await api(app, 'GET', `/api/v1/requests?saved_filter_id=${randomUUID()}`, as('viewer'))).status).toBe(404);
    // A stored filter the view refuses is a 400 when used, never a 500.
    const bad = (await save('viewer', { name: 'bad', view: 'requests', filter: { status: 'teapot' } })).body.data.id;
    expect((await api(app, 'GET', `/api/v1/requests?saved_filter_id=${bad}`, as('viewer'))).status).toBe(400);
  });

  it(
    'private filters are their owner’s; ' + 'project filters are everyone’s to read and admin/editor’s to change',
    async () => {
      const mine = (await save('viewer', { name: 'mine', view: 'requests', filter: { model: 'gpt-4o' } })).body.data.id;
      expect((await api(app, 'GET', `/api/v1/saved-filters/${mine}`, as('admin'))).status).toBe(404);
      expect(
        (await api(app, 'GET', '/api/v1/saved-filters?view=requests', as('admin'))).body.data.map(
          (f: { name: string }) => f.name,
        ),
      ).toEqual(['errors']);
      expect((await save('viewer', { name: 'x', view: 'requests', filter: {}, visibility: 'project' })).body.code).toBe(
        'insufficient_role',
      );
      expect(
        (await api(app, 'PATCH', `/api/v1/saved-filters/${shared}`, { ...as('viewer'), body: { name: 'mine now' } }))
          .body.code,
      ).toBe('not_owner');
      expect(
        (await api(app, 'PATCH', `/api/v1/saved-filters/${shared}`, { ...as('admin'), body: { name: '5xx' } })).body
          .data,
      ).toMatchObject({ name: '5xx', mine: false });
      expect(
        (await api(app, 'PATCH', `/api/v1/saved-filters/${mine}`, { ...as('viewer'), body: { sort: 'latency_ms' } }))
          .body.data,
      ).toMatchObject({ sort: 'latency_ms', mine: true });
      expect((await api(app, 'DELETE', `/api/v1/saved-filters/${mine}`, as('viewer'))).status).toBe(200);
      expect((await save('admin', { name: 'c', view: 'requests', filter: { saved_filter_id: shared } })).status).toBe(
        400,
      );
      // API keys use the project's filters on the read routes.
      expect(
        (await api(app, 'GET', `/api/v1/requests?saved_filter_id=${shared}`, { token: t.publicKey })).body.data,
      ).toHaveLength(2);
      expect(
        (await api(app, 'GET', `/api/v1/requests?saved_filter_id=${shared}`, { token: other.fullKey })).status,
      ).toBe(404);
    },
  );

  describe('role matrix', () => {
    const own = async () =>
      (await save('editor', { name: `o-${randomUUID()}`, view: 'stats', filter: {}, visibility: 'project' })).body.data
        .id as string;
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /saved-filters', method: 'GET', path: () => '/api/v1/saved-filters' },
        {
          name: 'POST /saved-filters',
          method: 'POST',
          path: () => '/api/v1/saved-filters',
          ok: 201,
          body: { name: 'm', view: 'requests', filter: {} },
        },
        { name: 'GET /saved-filters/:id', method: 'GET', path: () => `/api/v1/saved-filters/${shared}` },
        {
          name: 'PATCH /saved-filters/:id',
          method: 'PATCH',
          path: async () => `/api/v1/saved-filters/${await own()}`,
          write: true,
          body: { sort: 'model' },
        },
        {
          name: 'DELETE /saved-filters/:id',
          method: 'DELETE',
          path: async () => `/api/v1/saved-filters/${await own()}`,
          write: true,
        },
      ],
    );
  });
});
