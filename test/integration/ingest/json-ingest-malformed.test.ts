import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { jsonIngestCalls } from './helpers';

/** The SDK wire format refusing malformed requests (400, 413, 415), storing nothing. */
describe('JSON ingest /ingest/*', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  const { uid, post, iso, counts } = jsonIngestCalls(() => ({ app, t }));

  describe('malformed requests', () => {
    const raw = (path: string, body: string, type = 'application/json', method = 'POST') =>
      fetch(`${app.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': type },
        body,
      });

    it.each([
      ['/ingest/traces', '{"id": "x", "name": '],
      ['/ingest/spans', '{'],
      ['/ingest/batch', 'null'],
      ['/ingest/traces', '"just a string"'],
      ['/ingest/traces', '[]'],
      ['/ingest/spans', '{"id":"s","trace_id":"t","name":"n","start_time":"2026-13-45T00:00:00Z"}'],
      [
        '/ingest/spans',
        '{"id":"s","trace_id":"t","name":"n","start_time":"2026-01-01T00:00:00Z","prompt_tokens":"12"}',
      ],
    ])('POST %s %s → 400, nothing stored', async (path, body) => {
      const before = await counts();
      const r = await raw(path, body);
      expect(r.status).toBe(400);
      const j = (await r.json()) as { success: boolean; code: unknown };
      expect(j.success).toBe(false);
      expect(typeof j.code).toBe('string');
      expect(await counts()).toEqual(before);
    });

    it('refuses other content types with 415 and empty PATCH bodies with 400', async () => {
      expect((await raw('/ingest/traces', 'id=x', 'application/x-www-form-urlencoded')).status).toBe(415);
      const empty = await fetch(`${app.url}/ingest/traces/abc`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${t.fullKey}` },
      });
      expect(empty.status).toBe(400);
    });

    it('names the field that exceeds the per-field limit (413)', async () => {
      const r = await post('/ingest/spans', {
        id: uid('sp'),
        trace_id: uid('tr'),
        name: 'n',
        start_time: iso(Date.now()),
        input: 'x'.repeat(1024 * 1024 + 1),
      });
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ code: 'field_too_large', field: 'body.input', limit_bytes: 1024 * 1024 });
    });

    it('refuses a request over the body limit with 413 saying which limit', async () => {
      const small = await startTestApp({
        role: 'api',
        env: { INGEST_MAX_REQUEST_BYTES: '4096' },
        database: app.database,
      });
      try {
        const r = await api(small, 'POST', '/ingest/traces', {
          token: t.fullKey,
          body: { id: 'big', name: 'n', start_time: iso(Date.now()), input: 'x'.repeat(5000) },
        });
        expect(r.status).toBe(413);
        expect(r.body).toMatchObject({ code: 'request_too_large', limit_bytes: 4096 });
      } finally {
        await small.stop();
      }
    });
  });
});
