import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

/**
 * Request, trace and session lists: forged cursors, out-of-range dates and NUL in filters are the
 * caller's mistake (400), never a database error (22P02, 22007, 22008, 22021 → 500).
 */
describe('list filters and cursors refuse bad input with 400', () => {
  let app: TestApp;
  let t: SeededTenant;

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    const start = Date.parse('2026-07-01T00:00:00Z');
    const operations = [0, 1, 2].map((i) => ({
      op: 'trace.create',
      id: `rf-${i}`,
      body: { name: 'n', session_id: `rf-sess-${i}`, start_time: new Date(start + i * 1000).toISOString() },
    }));
    expect((await api(app, 'POST', '/ingest/batch', { token: t.fullKey, body: { operations } })).status).toBe(200);
  });
  afterAll(() => app.stop());

  const asUser = () => ({ token: t.admin.token, orgId: t.orgId });
  const lists = ['/api/v1/requests', '/api/v1/traces', '/api/v1/sessions'];
  const forged = [
    '1',
    '-'.repeat(36),
    'arbitrary text',
    Buffer.from('["x","y","z"]').toString('base64url'),
    Buffer.from('{"t":"now","id":"x"}').toString('base64url'),
  ];

  it.each(lists)('%s: forged cursors are 400 invalid_cursor', async (path) => {
    for (const cursor of forged) {
      const r = await api(app, 'GET', `${path}?cursor=${encodeURIComponent(cursor)}`, asUser());
      expect({ cursor, status: r.status, code: r.body.code }).toEqual({ cursor, status: 400, code: 'invalid_cursor' });
    }
  });

  it.each(lists)('%s: dates outside years 0001..9999 are 400', async (path) => {
    for (const q of [
      'from=0000-01-01T00:00:00Z',
      'to=-200000-01-01T00:00:00Z',
      'from=10000-01-01T00:00:00Z',
      'from=yesterday',
    ]) {
      const r = await api(app, 'GET', `${path}?${q}`, asUser());
      expect({ q, status: r.status }).toEqual({ q, status: 400 });
    }
  });

  it.each(lists)('%s: NUL in a filter is 400', async (path) => {
    const r = await api(app, 'GET', `${path}?user_id=%00`, asUser());
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_text');
  });

  it('NUL or an unpaired surrogate in a path id is a 404, never a 5xx', async () => {
    for (const path of [
      '/api/v1/sessions/%00',
      '/api/v1/sessions/a%00b',
      '/api/v1/traces/%00',
      '/api/v1/requests/%00',
      '/api/v1/prompts/%00',
    ]) {
      const r = await api(app, 'GET', path, asUser());
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
    }
  });

  it('a cursor handed out by a list pages it', async () => {
    const first = await api(app, 'GET', '/api/v1/sessions?limit=2', asUser());
    expect(first.status).toBe(200);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await api(app, 'GET', `/api/v1/sessions?limit=2&cursor=${first.body.next_cursor}`, asUser());
    expect(second.status).toBe(200);
    expect(second.body.data.map((s: { id: string }) => s.id)).toEqual(['rf-sess-0']);
  });
});
