import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

/** Issue 11: over-deep JSON, unstorable text and the spec's `completed` status on /ingest/*. */
describe('ingest input hygiene', () => {
  let app: TestApp;
  let t: SeededTenant;
  const now = new Date().toISOString();
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  /** The test builds the JSON text itself: JSON.stringify of a 10,000-deep value overflows here too. */
  const postRaw = (path: string, json: string) =>
    fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: json,
    });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  it('refuses a 10,000-deep input with a 400 naming the field, stores nothing and keeps serving', async () => {
    const res = await postRaw(
      '/ingest/traces',
      `{"id":"deep-1","name":"d","start_time":"${now}","input":${deep(10_000)}}`,
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { success: boolean; code: string; field: string; max_depth: number };
    expect(body).toMatchObject({ success: false, code: 'too_deep', field: 'body.input', max_depth: 100 });
    expect((await api(app, 'GET', '/api/v1/traces/deep-1', { token: t.fullKey })).status).toBe(404);
    // 100 levels are fine
    const ok = await postRaw(
      '/ingest/traces',
      `{"id":"deep-ok","name":"d","start_time":"${now}","metadata":{"a":${deep(99)}}}`,
    );
    expect(ok.status).toBe(201);
  });

  it('answers a deep item of a batch with its own 400 (207) and stores the rest', async () => {
    const ops = [
      `{"op":"trace.create","id":"batch-ok","body":{"name":"fine","start_time":"${now}"}}`,
      `{"op":"span.create","id":"batch-deep",` +
        `"body":{"trace_id":"batch-ok","name":"s","start_time":"${now}","metadata":{"x":${deep(10_000)}}}}`,
    ];
    const res = await postRaw('/ingest/batch', `{"operations":[${ops.join(',')}]}`);
    expect(res.status).toBe(207);
    const { data } = (await res.json()) as { data: { results: { index: number; status: number; code?: string }[] } };
    expect(data.results[0]).toMatchObject({ index: 0, status: 201 });
    expect(data.results[1]).toMatchObject({ index: 1, status: 400, code: 'too_deep' });
    const trace = await api(app, 'GET', '/api/v1/traces/batch-ok', { token: t.fullKey });
    expect(trace.status).toBe(200);
    expect(trace.body.data.spans).toEqual([]);
  });

  it(
    'stores NUL and lone surrogates cleaned (NUL removed, ' + 'U+FFFD) in names, labels, input, output and metadata',
    async () => {
      const dirty = 'a\u0000b\ud800c';
      const clean = 'ab\ufffdc';
      const created = await api(app, 'POST', '/ingest/traces', {
        token: t.fullKey,
        body: {
          id: 'dirty-1',
          name: dirty,
          session_id: dirty,
          user_id: dirty,
          start_time: now,
          input: { [dirty]: [dirty] },
          metadata: { k: dirty },
        },
      });
      expect(created.status).toBe(201);
      const span = await api(app, 'POST', '/ingest/spans', {
        token: t.fullKey,
        body: { id: 'dirty-s', trace_id: 'dirty-1', name: dirty, model: dirty, start_time: now, output: dirty },
      });
      expect(span.status).toBe(201);
      const got = await api(app, 'GET', '/api/v1/traces/dirty-1', { token: t.fullKey });
      expect(got.status).toBe(200);
      expect(got.body.data).toMatchObject({
        name: clean,
        session_id: clean,
        user_id: clean,
        input: { [clean]: [clean] },
        metadata: { k: clean },
      });
      expect(got.body.data.spans[0]).toMatchObject({ name: clean, model: clean, output: clean });
    },
  );

  it("accepts the spec's `completed` as a span status (stored as ok)", async () => {
    expect(
      (await api(app, 'POST', '/ingest/traces', { token: t.fullKey, body: { id: 'st-1', name: 'n', start_time: now } }))
        .status,
    ).toBe(201);
    const span = await api(app, 'POST', '/ingest/spans', {
      token: t.fullKey,
      body: { id: 'st-s', trace_id: 'st-1', name: 's', start_time: now, status: 'completed' },
    });
    expect(span.status).toBe(201);
    const upd = await api(app, 'PATCH', '/ingest/spans/st-s', {
      token: t.fullKey,
      body: { end_time: now, status: 'completed' },
    });
    expect(upd.status).toBe(200);
    const got = await api(app, 'GET', '/api/v1/traces/st-1', { token: t.fullKey });
    expect(got.body.data.spans[0]).toMatchObject({ id: 'st-s', status: 'ok' });
  });

  it('counts operations by kind, source and outcome in gateway_ingest_operations_total', async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const count = (labels: string) =>
      Number(new RegExp(`gateway_ingest_operations_total\\{${labels}\\} (\\d+)`).exec(text)?.[1] ?? 0);
    expect(count('op="trace.create",source="sdk",outcome="ok"')).toBeGreaterThanOrEqual(4);
    expect(count('op="trace.create",source="sdk",outcome="error"')).toBeGreaterThanOrEqual(1);
    expect(count('op="span.create",source="sdk",outcome="error"')).toBeGreaterThanOrEqual(1);
  });
});
