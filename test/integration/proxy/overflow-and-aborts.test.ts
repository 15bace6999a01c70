import { proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('proxy: log-queue overflow policy and client aborts', () => {
  let h: ProxyHarness;
  let release: (() => void) | undefined;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'], env: { PROXY_LOG_QUEUE_MAX: '1' } });
  });
  afterAll(() => h.stop());
  beforeEach(() => h.upstream.reset());

  it('refuses with 503 before going upstream when the request-log capacity is taken, and recovers', async () => {
    h.upstream.handle(async (_req, res) => {
      await new Promise<void>((r) => (release = r));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    });
    const first = proxyFetch(h, 'openai', '/v1/chat/completions', { body: chat });
    while (h.upstream.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
    const second = await proxyFetch(h, 'openai', '/v1/chat/completions', { body: chat });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(await second.json()).toMatchObject({ code: 'log_queue_full' });
    expect(h.upstream.requests).toHaveLength(1);
    release!();
    expect((await first).status).toBe(200);
    await h.rows(1);
    h.upstream.reset();
    const third = await proxyFetch(h, 'openai', '/v1/chat/completions', { body: chat });
    expect(third.status).toBe(200);
    await third.arrayBuffer();
    await h.rows(2);
  });

  it(
    'a caller that disconnects mid-stream aborts the ' + 'upstream call and the call is recorded as client_closed',
    async () => {
      let upstreamClosed!: () => void;
      const closed = new Promise<void>((r) => (upstreamClosed = r));
      h.upstream.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = { model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'partial answer' } }] };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.on('close', () => upstreamClosed()); // never ends on its own
      });
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { body: { ...chat, stream: true } });
      const reader = res.body!.getReader();
      await reader.read();
      await reader.cancel();
      await closed; // the gateway hung up on the provider
      const rows = await h.rows(1, { error: 'client_closed' });
      expect(rows[0]).toMatchObject({ status_code: 200, streamed: true });
      // Tokens it produced are still counted.
      expect(rows[0]!.completion_tokens).toBeGreaterThan(0);
    },
  );
});
