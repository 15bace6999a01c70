import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { requestRow, writeRows } from './analytics/seed';

/**
 * The request log across several projects (one ordered index walk per project, merged): pages
 * are the same rows in the same order as one sorted list, with ties on created_at, and filters.
 */
describe('request log keyset pages across projects', () => {
  let app: TestApp;
  let t: SeededTenant;
  let expected: { id: string; created_at: string; model: string }[] = [];
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    const second = (
      await api(app, 'POST', '/api/v1/projects', { token: t.admin.token, orgId: t.orgId, body: { name: 'second' } })
    ).body.data.id as string;
    const base = Date.parse('2026-11-20T00:00:00Z');
    const rows = Array.from({ length: 90 }, (_, i) =>
      requestRow(
        { orgId: t.orgId, projectId: i % 3 ? t.projectId : second },
        { created_at: new Date(base + Math.floor(i / 4) * 1000).toISOString(), model: i % 2 ? 'a' : 'b' },
      ),
    );
    await writeRows(app.database.db, rows, { fold: false });
    expected = rows
      .map((r) => ({ id: r.id, created_at: new Date(r.created_at).toISOString(), model: r.model }))
      .sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1));
  });
  afterAll(() => app?.stop());

  const all = async (qs: string) => {
    const ids: string[] = [];
    for (let cursor: string | null = null; ;) {
      const r: { body: { data: { id: string }[]; next_cursor?: unknown } } = await api(
        app,
        'GET',
        `/api/v1/requests?limit=7${qs}${cursor ? `&cursor=${cursor}` : ''}`,
        { token: t.viewer.token, orgId: t.orgId },
      );
      ids.push(...r.body.data.map((x) => x.id));
      cursor = r.body.next_cursor as string | null;
      if (!cursor) return ids;
    }
  };

  it('pages every row of both projects once, newest first, ties broken by id', async () => {
    expect(await all('')).toEqual(expected.map((x) => x.id));
  });

  it('applies the filter in each project', async () => {
    expect(await all('&model=a')).toEqual(expected.filter((x) => x.model === 'a').map((x) => x.id));
  });
});
