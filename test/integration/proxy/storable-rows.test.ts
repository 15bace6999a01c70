import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../src/logger';
import { RequestLogWriter, type RequestRow } from '../../../src/proxy/log-writer';
import { proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

/** Issue 11 §3: every stored text is made storable; a row the database refuses never silently disappears. */
describe('request log: unstorable text and rejected rows', () => {
  let h: ProxyHarness;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'] });
    // A subscribed webhook (written directly: this app runs no dispatcher, so outbox rows stay put).
    await h.app.database.db('webhooks').insert({
      org_id: h.tenant.orgId,
      name: 'req',
      url: 'https://example.com/hook',
      events: ['request.created'],
      secret_ciphertext: 'x',
      master_key_id: 'k1',
      secret_hint: 'x',
    });
  });
  afterAll(() => h.stop().catch(() => undefined));
  afterEach(() => h.upstream.reset());

  const eventsFor = async (id: string) =>
    (await h.app.database.db('event_outbox').where({ kind: 'request.created' }).select('payload')).filter(
      (e) => e.payload.request?.id === id,
    );

  const metric = async (outcome: string) => {
    const text = await (await fetch(`${h.app.url}/metrics`)).text();
    const m = new RegExp(`^gateway_request_log_rows_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };

  it('stores a call whose model holds a lone surrogate and NUL, cleaned, with one request.created', async () => {
    // The escapes parse to a real lone surrogate and NUL; the fake provider echoes the model back.
    const body = '{"model":"gpt-\\ud800\\u0000x","messages":[{"role":"user","content":"hi"}]}';
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { body });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const id = res.headers.get('x-service-request-id')!;
    const [row] = await h.rows(1, { id });
    expect(row!.model).toBe('gpt-\ufffdx');
    expect(row!.total_tokens).toBeGreaterThan(0);
    const deadline = Date.now() + 5000;
    while ((await eventsFor(id)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const events = await eventsFor(id);
    expect(events).toHaveLength(1);
    expect(events[0].payload.request.model).toBe('gpt-\ufffdx');
  });

  it('stores request and response bodies holding NUL and invalid text, cleaned', async () => {
    h.upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(Buffer.concat([Buffer.from('ok'), Buffer.from([0x00]), Buffer.from('\ud800 end')]));
    });
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', {
      body: Buffer.from('hi\u0000there \ud83d'),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const id = res.headers.get('x-service-request-id')!;
    const [row] = await h.rows(1, { id });
    expect(row!.request_body).toBe('hithere \ufffd');
    expect(row!.response_body).toBe('ok\ufffd end');
    expect(await eventsFor(id)).toHaveLength(1);
  });

  it('writes the rest of a batch, stores a row refused even alone as a minimal row, and counts both', async () => {
    const ctx = h.app.runtime.ctx;
    const before = { alone: await metric('stored_alone'), minimal: await metric('minimal') };
    const w = new RequestLogWriter(
      ctx.db,
      createLogger('silent'),
      { queueMax: 100, batchSize: 5, flushMs: 5 },
      { metrics: ctx.metrics },
    );
    const row = (over: Partial<RequestRow> = {}): RequestRow => ({
      id: randomUUID(),
      org_id: h.tenant.orgId,
      project_id: h.tenant.projectId,
      api_key_id: h.tenant.fullKeyId,
      provider: 'openai',
      model: 'gpt-4o-mini',
      method: 'POST',
      path: '/v1/chat/completions',
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0.000001,
      latency_ms: 5,
      ttfb_ms: 3,
      status_code: 200,
      trace_id: 'tr-bad',
      span_id: null,
      user_id: 'u1',
      session_id: null,
      request_body: 'secret-free body',
      response_body: 'answer',
      log_mode: 'full',
      cache_hit: false,
      streamed: false,
      tokens_estimated: false,
      self_hosted: false,
      prompt_version_id: null,
      error: null,
      created_at: new Date().toISOString(),
      properties: null,
      cost_saved_usd: null,
      ...over,
    });
    const good = Array.from({ length: 4 }, () => row());
    const bad = row({ prompt_version_id: randomUUID() }); // no such prompt version: foreign key violation
    for (const r of [good[0]!, good[1]!, bad, good[2]!, good[3]!]) {
      w.reserve();
      void w.enqueue({ row: r });
    }
    await w.drain(5000);
    const rows = await ctx.db('requests').whereIn(
      'id',
      [...good, bad].map((r) => r.id),
    );
    expect(rows).toHaveLength(5);
    const stored = rows.find((r) => r.id === bad.id)!;
    expect(stored).toMatchObject({
      status_code: 200,
      latency_ms: 5,
      ttfb_ms: 3,
      project_id: h.tenant.projectId,
      prompt_version_id: null,
      request_body: '',
      trace_id: null,
    });
    expect(stored.error).toMatch(/^log_row_rejected \(23503\)/);
    expect(w.stats).toMatchObject({ written: 5, dropped: 0 });
    expect(w.inFlight).toBe(0);
    for (const r of [...good, bad]) expect(await eventsFor(r.id)).toHaveLength(1);
    expect(await metric('stored_alone')).toBe(before.alone + 4);
    expect(await metric('minimal')).toBe(before.minimal + 1);
    await w.stop(100);
  });
});
