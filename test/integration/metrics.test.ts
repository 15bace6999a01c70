import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../helpers/https-receiver';

/** GET /metrics answers with the documented series (docs/metrics.md) after proxy, ingest and webhook traffic. */
describe('GET /metrics', () => {
  let app: TestApp;
  let t: SeededTenant;
  let upstream: FakeUpstream;
  let receiver: HttpsReceiver;
  const TOKEN = 'metrics-token-metrics-token';
  beforeAll(async () => {
    const { caFile } = await testCertificates();
    receiver = await startHttpsReceiver();
    upstream = await startFakeUpstream();
    app = await startTestApp({
      role: 'all',
      env: {
        WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
        WEBHOOK_CA_FILE: caFile,
        PROVIDER_OPENAI_BASE_URL: upstream.url,
        PROXY_LOG_FLUSH_MS: '10',
        METRICS_TOKEN: TOKEN,
      },
    });
    t = await seedTenant(app);
  });
  afterAll(async () => {
    await app?.stop();
    await upstream?.close();
    await receiver?.close();
  });

  const scrape = async (token: string | null = TOKEN) => {
    const res = await fetch(`${app.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const value = (text: string, series: string, labels: Record<string, string> = {}) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(series) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
      .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

  it('is protected by METRICS_TOKEN when set', async () => {
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape('wrong-token-wrong-token')).status).toBe(401);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.type).toContain('text/plain');
  });

  it('reports HTTP, proxy, request-log, ingest, outbox, webhook and workflow series after traffic', async () => {
    const hook = await api(app, 'POST', '/api/v1/webhooks', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { name: 'all', url: `${receiver.url}/hooks/m`, events: ['request.created'] },
    });
    expect(hook.status).toBe(201);
    const key = await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-upstream-openai-0123456789abcdef' },
    });
    expect([200, 201]).toContain(key.status);
    const proxied = await fetch(`${app.url}/proxy/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(proxied.status).toBe(200);
    await proxied.text();
    const ingest = await api(app, 'POST', '/ingest/traces', {
      token: t.fullKey,
      body: { id: `m-${Date.now()}`, name: 'metrics', start_time: new Date().toISOString() },
    });
    expect(ingest.status).toBeLessThan(300);

    // The delivery of request.created proves the row was stored and the workflow ran.
    const deadline = Date.now() + 20_000;
    while (receiver.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(receiver.requests.length).toBeGreaterThan(0);
    let text = '';
    for (;;) {
      text = (await scrape()).text;
      if (value(text, 'gateway_webhook_attempts_total', { outcome: 'delivered' }) >= 1 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(
      value(text, 'gateway_http_request_duration_seconds_count', { route: '/api/v1/webhooks', status: '201' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(text, 'gateway_proxy_upstream_duration_seconds_count', { provider: 'openai', status: '200' })).toBe(1);
    expect(value(text, 'gateway_proxy_added_latency_seconds_count', { provider: 'openai' })).toBe(1);
    expect(value(text, 'gateway_request_log_rows_total', { outcome: 'stored' })).toBe(1);
    expect(value(text, 'gateway_request_log_flush_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^gateway_request_log_queue_depth \d+/m);
    expect(value(text, 'gateway_ingest_operations_total', { op: 'trace.create', source: 'sdk', outcome: 'ok' })).toBe(
      1,
    );
    expect(text).toMatch(/^gateway_outbox_backlog \d+/m);
    expect(text).toMatch(/^gateway_outbox_lag_seconds [\d.e+-]+/m);
    expect(value(text, 'gateway_webhook_attempts_total', { outcome: 'delivered', kind: 'delivery' })).toBe(1);
    expect(value(text, 'gateway_temporal_workflow_starts_total', { outcome: 'started' })).toBeGreaterThanOrEqual(1);
    expect(text).toContain('gateway_process_cpu_seconds_total');
  });
});
