import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../src/logger';
import { RequestLogWriter, type RequestRow } from '../../../src/proxy/log-writer';
import { createDb } from '../../../src/db/knex';
import { waitUntil } from '../webhooks/fixtures';
import { proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

describe('request log batch writer', () => {
  let h: ProxyHarness;
  beforeAll(async () => {
    // A flush interval far beyond the test: rows are written only by full batches or by the drain.
    h = await startProxyHarness({ providers: ['openai'], env: { PROXY_LOG_FLUSH_MS: '600000' } });
  });
  afterAll(() => h.stop().catch(() => undefined));
  // Each case counts the rows it wrote: none left by another, even one that failed.
  afterEach(() => h.app.database.db('requests').del());

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
    trace_id: null,
    span_id: null,
    user_id: null,
    session_id: null,
    request_body: 'q \u00e9 "quoted" \\ back',
    response_body: '',
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
  const logger = createLogger('silent');

  it('reserves capacity up to queueMax and refuses beyond it (the proxy answers 503 then)', () => {
    const w = new RequestLogWriter(h.app.database.db, logger, { queueMax: 2, batchSize: 10, flushMs: 10 });
    expect([w.reserve(), w.reserve(), w.reserve()]).toEqual([true, true, false]);
    w.release();
    expect(w.reserve()).toBe(true);
  });

  it('writes full batches at once in multi-row inserts, exact values preserved', async () => {
    const w = new RequestLogWriter(h.app.database.db, logger, { queueMax: 5000, batchSize: 500, flushMs: 600_000 });
    const rows = Array.from({ length: 1000 }, () => row());
    for (const r of rows) {
      expect(w.reserve()).toBe(true);
      void w.enqueue({ row: r });
    }
    // Two full batches go without waiting for the (10 minute) timer.
    await h.rows(1000, { provider: 'openai', model: 'gpt-4o-mini', request_body: rows[0]!.request_body });
    // The commit is visible to other connections before the writer's own callback counts it.
    await waitUntil(async () => w.stats.written === 1000 || undefined, 5_000, 'the writer to count both batches');
    expect(w.stats.written).toBe(1000);
    expect(w.inFlight).toBe(0);
    const one = await h.app.database.db('requests').where({ id: rows[7]!.id }).first();
    expect(one).toMatchObject({ request_body: 'q \u00e9 "quoted" \\ back', total_tokens: 3, ttfb_ms: 3 });
    expect(Number(one.cost_usd)).toBe(0.000001);
  });

  it('drops only the row the database rejects, writing the rest of its batch', async () => {
    const w = new RequestLogWriter(h.app.database.db, logger, { queueMax: 100, batchSize: 5, flushMs: 5 });
    const good = Array.from({ length: 4 }, () => row());
    const bad = row({ project_id: randomUUID() }); // no such project: foreign key violation
    for (const r of [good[0]!, good[1]!, bad, good[2]!, good[3]!]) {
      w.reserve();
      void w.enqueue({ row: r });
    }
    await w.drain(5000);
    const ids = (await h.app.database.db('requests').select('id')).map((r) => r.id).sort();
    expect(ids).toEqual(good.map((r) => r.id).sort());
    expect(w.stats).toMatchObject({ written: 4, dropped: 1 });
    expect(w.inFlight).toBe(0);
  });

  it('keeps rows queued, never dropped, while the database is unreachable', async () => {
    const dead = createDb('postgres://postgres@127.0.0.1:1/none', 1);
    const w = new RequestLogWriter(dead, logger, { queueMax: 100, batchSize: 10, flushMs: 5 });
    w.reserve();
    void w.enqueue({ row: row() });
    const deadline = Date.now() + 5000;
    while (w.stats.failedBatches === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(w.stats.failedBatches).toBeGreaterThan(0);
    expect(w.pending).toBe(1);
    expect(w.stats.dropped).toBe(0);
    await w.stop(100);
    await dead.destroy();
  });

  it('drains queued rows on graceful shutdown', async () => {
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', {
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'bye' }] },
    });
    await res.arrayBuffer();
    const id = res.headers.get('x-service-request-id');
    // The timer would wait ten minutes; only the shutdown drain can write it.
    await new Promise((r) => setTimeout(r, 50));
    expect(await h.app.database.db('requests').where({ id }).first()).toBeUndefined();
    const db = createDb(h.app.database.url, 1);
    try {
      await h.app.runtime.stop();
      expect(await db('requests').where({ id }).first()).toMatchObject({ id, status_code: 200 });
    } finally {
      await db.destroy();
    }
  });
});
