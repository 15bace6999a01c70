import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { requestRow, writeRows } from '../analytics/seed';

/** Datasets: versions, reads at a version, archive, bulk from production, CSV and JSONL uploads. */
describe('datasets', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let ds: string;
  const admin = () => ({ token: t.admin.token, orgId: t.orgId });
  type Item = Record<string, unknown> & { source_request_id: string };
  const items = async (qs = '') =>
    (await api(app, 'GET', `/api/v1/datasets/${ds}/items?limit=1000${qs}`, admin())).body.data as Item[];
  const upload = (body: string, type: string, qs = '') =>
    fetch(`${app.url}/api/v1/datasets/${ds}/items/upload${qs}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.editor.token}`, 'x-organization-id': t.orgId, 'content-type': type },
      body,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    ds = (await api(app, 'POST', '/api/v1/datasets', { ...admin(), body: { name: 'qa', description: 'questions' } }))
      .body.data.id;
  });
  afterAll(() => app?.stop());

  it('every change is a version; a read at an old version sees the old items', async () => {
    const add = (body: unknown) => api(app, 'POST', `/api/v1/datasets/${ds}/items`, { ...admin(), body });
    const first = (
      await add({
        items: [
          { id: 'q1', input: { q: 'capital of France?' }, expected_output: 'Paris', split: 'test' },
          { id: 'q2', input: 'two plus two', expected_output: '4' },
        ],
      })
    ).body.data;
    expect(first).toMatchObject({ added: 2, updated: 0, unchanged: 0, version: expect.any(String) });
    // The same items again: nothing changes, no version.
    expect(
      (
        await add({
          items: [{ id: 'q1', input: { q: 'capital of France?' }, expected_output: 'Paris', split: 'test' }],
        })
      ).body.data,
    ).toMatchObject({ version: null, unchanged: 1 });
    const second = (
      await add({ items: [{ id: 'q2', input: 'two plus two', expected_output: 'four' }, { input: 'no id given' }] })
    ).body.data;
    expect(second).toMatchObject({ added: 1, updated: 1 });
    const archived = (await api(app, 'DELETE', `/api/v1/datasets/${ds}/items/q1`, admin())).body.data;
    expect(archived).toMatchObject({ updated: 1 });
    expect(
      (await items())
        .map((i) => [i.id, i.expected_output])
        .filter(([id]) => id !== undefined && !String(id).match(/^[0-9a-f-]{36}$/)),
    ).toEqual([['q2', 'four']]);
    const atFirst = await items(`&version=${encodeURIComponent(first.version)}`);
    expect(atFirst.map((i) => [i.id, i.expected_output, i.status, i.split])).toEqual([
      ['q1', 'Paris', 'active', 'test'],
      ['q2', '4', 'active', null],
    ]);
    expect((await items('&status=archived')).map((i) => i.id)).toEqual(['q1']);
    const versions = (await api(app, 'GET', `/api/v1/datasets/${ds}/versions`, admin())).body.data;
    expect(
      versions.map((v: { added: number; updated: number; archived: number }) => [v.added, v.updated, v.archived]),
    ).toEqual([
      [0, 0, 1],
      [1, 1, 0],
      [2, 0, 0],
    ]);
    expect((await api(app, 'GET', `/api/v1/datasets/${ds}`, admin())).body.data).toMatchObject({
      items: 2,
      latest_version: versions[0].version,
    });
  });

  it('adds from production: newest or a random sample of matching requests, linked to their source', async () => {
    const rows = Array.from({ length: 20 }, (_, i) =>
      requestRow(
        { orgId: t.orgId, projectId: t.projectId },
        {
          model: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
          log_mode: 'full',
          created_at: new Date(Date.now() - i * 1000).toISOString(),
          request_body: JSON.stringify({ messages: [{ role: 'user', content: `question ${i}` }] }),
          response_body: JSON.stringify({ choices: [{ message: { content: `answer ${i}` } }] }),
        },
      ),
    );
    await writeRows(app.database.db, rows);
    const range = {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };
    const sampled = (
      await api(app, 'POST', `/api/v1/datasets/${ds}/items/from-production`, {
        ...admin(),
        body: {
          source: { kind: 'requests', ...range, limit: 5, filter: { model: 'gpt-4o' } },
          sample: 'random',
          split: 'train',
        },
      })
    ).body.data;
    expect(sampled).toMatchObject({ added: 5 });
    const train = await items('&split=train');
    expect(train).toHaveLength(5);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const i of train) {
      const src = byId.get(i.source_request_id)!;
      expect(src.model).toBe('gpt-4o');
      expect(i).toMatchObject({
        input: { messages: [{ role: 'user', content: expect.stringMatching(/^question/) }] },
        expected_output: expect.stringMatching(/^answer/),
        metadata: { model: 'gpt-4o' },
      });
    }
    const newest = (
      await api(app, 'POST', `/api/v1/datasets/${ds}/items/from-production`, {
        ...admin(),
        body: { source: { kind: 'requests', ...range, limit: 3 } },
      })
    ).body.data;
    // Rows the random sample already took come back as updates (their split is rewritten) or unchanged.
    expect(newest.added + newest.updated + newest.unchanged).toBe(3);
  });

  it('uploads CSV and JSONL, reporting refused rows by number', async () => {
    const csv =
      'id,input,expected_output,metadata,split\n' +
      'c1,"{""q"":""hi""}",hello,"{""lang"":""en""}",test\n' +
      'c2,,missing input,,\n' +
      'c3,plain text,"x, y",,\n';
    const r = await upload(csv, 'text/csv');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ added: 2, errors: [{ row: 2, error: expect.stringContaining('input') }] });
    const c1 = (await items()).find((i) => i.id === 'c1')!;
    expect(c1).toMatchObject({ input: { q: 'hi' }, expected_output: 'hello', metadata: { lang: 'en' }, split: 'test' });
    const jsonl =
      '{"id":"j1","input":{"q":"a"},"expected_output":"b"}\n' +
      'not json\n' +
      '{"id":"bad id!","input":"x"}\n' +
      '\n' +
      '{"input":"y","split":"test"}\n';
    const j = await upload(jsonl, 'application/x-ndjson', '?split=train');
    expect(j.body.data).toMatchObject({ added: 2, errors: [{ row: 2 }, { row: 3 }] });
    expect((await items()).find((i) => i.id === 'j1')!.split).toBe('train');
    expect((await upload('x', 'text/plain')).status).toBe(415);
    // Uploads are writes: a viewer and an API key are refused.
    const as = (token: string, orgId?: string) =>
      fetch(`${app.url}/api/v1/datasets/${ds}/items/upload`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          ...(orgId ? { 'x-organization-id': orgId } : {}),
          'content-type': 'text/csv',
        },
        body: 'input\nx\n',
      });
    expect((await as(t.viewer.token, t.orgId)).status).toBe(403);
    expect((await as(t.fullKey)).status).toBe(403);
    expect((await upload('id,input\n"unterminated', 'text/csv')).body.code).toBe('invalid_upload');
  });

  it('refuses a duplicate name and answers 404 for other organizations', async () => {
    expect((await api(app, 'POST', '/api/v1/datasets', { ...admin(), body: { name: 'qa' } })).body.code).toBe(
      'dataset_exists',
    );
    for (const m of ['GET', 'PATCH', 'DELETE'])
      expect(
        (
          await api(app, m, `/api/v1/datasets/${ds}`, {
            token: other.admin.token,
            orgId: other.orgId,
            body: m === 'PATCH' ? { name: 'x' } : undefined,
          })
        ).status,
      ).toBe(404);
    expect(
      (await api(app, 'GET', `/api/v1/datasets/${ds}/items`, { token: other.admin.token, orgId: other.orgId })).status,
    ).toBe(404);
  });

  describe('role matrix', () => {
    const fresh = async () =>
      (await api(app, 'POST', '/api/v1/datasets', { ...admin(), body: { name: `d-${Math.random()}` } })).body.data
        .id as string;
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /datasets', method: 'GET', path: () => '/api/v1/datasets' },
        {
          name: 'POST /datasets',
          method: 'POST',
          path: () => '/api/v1/datasets',
          write: true,
          ok: 201,
          get body() {
            return { name: `m-${Math.random()}` };
          },
        },
        { name: 'GET /datasets/:id', method: 'GET', path: () => `/api/v1/datasets/${ds}` },
        {
          name: 'PATCH /datasets/:id',
          method: 'PATCH',
          path: () => `/api/v1/datasets/${ds}`,
          write: true,
          body: { description: 'd' },
        },
        {
          name: 'DELETE /datasets/:id',
          method: 'DELETE',
          path: async () => `/api/v1/datasets/${await fresh()}`,
          write: true,
        },
        { name: 'GET /datasets/:id/versions', method: 'GET', path: () => `/api/v1/datasets/${ds}/versions` },
        { name: 'GET /datasets/:id/items', method: 'GET', path: () => `/api/v1/datasets/${ds}/items` },
        {
          name: 'POST /datasets/:id/items',
          method: 'POST',
          path: () => `/api/v1/datasets/${ds}/items`,
          write: true,
          body: { items: [{ id: 'm1', input: 'x' }] },
        },
        {
          name: 'POST /datasets/:id/items/from-production',
          method: 'POST',
          path: () => `/api/v1/datasets/${ds}/items/from-production`,
          write: true,
          body: { source: { kind: 'traces', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', limit: 1 } },
        },
        {
          name: 'DELETE /datasets/:id/items/:itemId',
          method: 'DELETE',
          path: () => `/api/v1/datasets/${ds}/items/q2`,
          write: true,
        },
      ],
    );
  });
});
