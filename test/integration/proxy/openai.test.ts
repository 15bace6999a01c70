import OpenAI from 'openai';
import { calcPrice } from '@pydantic/genai-prices';
import { TEXT_PARTS, USAGE } from '../../helpers/fake-upstream';
import { PROVIDER_SECRET, proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

describe('proxy: OpenAI through the official SDK', () => {
  let h: ProxyHarness;
  let client: OpenAI;
  beforeAll(async () => {
    h = await startProxyHarness({
      providers: ['openai', 'mistral', 'groq', 'deepseek', 'xai', 'together', 'openrouter'],
    });
    client = new OpenAI({ apiKey: h.tenant.fullKey, baseURL: `${h.base('openai')}/v1`, maxRetries: 0 });
  });
  afterAll(() => h.stop());
  beforeEach(() => h.upstream.reset());

  const expectedCost = (model: string) =>
    calcPrice({ input_tokens: USAGE.prompt, output_tokens: USAGE.completion }, model, { providerId: 'openai' })!
      .total_price;

  it(
    'forwards a chat completion, injects the provider key, ' +
      'strips service and caller headers, and logs usage and cost',
    async () => {
      const out = await client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        {
          headers: {
            'x-service-user-id': 'end-user-1',
            'x-service-session-id': 'sess-1',
            'x-service-trace-id': 'trace-abc',
            'x-service-span-id': 'span-1',
            'x-service-anything-else': 'secret-meta',
          },
        },
      );
      expect(out.choices[0]!.message.content).toBe(TEXT_PARTS.join(''));
      expect(out.usage).toEqual({
        prompt_tokens: USAGE.prompt,
        completion_tokens: USAGE.completion,
        total_tokens: USAGE.prompt + USAGE.completion,
      });

      const got = h.upstream.requests[0]!;
      expect(got.method).toBe('POST');
      expect(got.path).toBe('/v1/chat/completions');
      expect(got.headers.authorization).toBe(`Bearer ${PROVIDER_SECRET('openai')}`);
      expect(JSON.stringify(got.headers)).not.toContain(h.tenant.fullKey);
      expect(Object.keys(got.headers).filter((k) => k.startsWith('x-service-'))).toEqual([]);
      expect(got.json).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

      const [row] = await h.rows(1);
      expect(row).toMatchObject({
        provider: 'openai',
        model: 'gpt-4o-mini',
        path: '/v1/chat/completions',
        prompt_tokens: USAGE.prompt,
        completion_tokens: USAGE.completion,
        total_tokens: USAGE.prompt + USAGE.completion,
        status_code: 200,
        user_id: 'end-user-1',
        session_id: 'sess-1',
        trace_id: 'trace-abc',
        span_id: 'span-1',
        cache_hit: false,
        tokens_estimated: false,
        self_hosted: false,
        streamed: false,
        org_id: h.tenant.orgId,
        project_id: h.tenant.projectId,
        api_key_id: h.tenant.fullKeyId,
      });
      expect(row!.cost_usd).toBeCloseTo(expectedCost('gpt-4o-mini'), 12);
      expect(row!.latency_ms).toBeGreaterThanOrEqual(0);
      expect(row!.request_body).toContain('"gpt-4o-mini"');
      expect(row!.response_body).toContain('Hello from the fake upstream.');
      expect(JSON.stringify(row)).not.toContain(PROVIDER_SECRET('openai'));
    },
  );

  it('returns the request id header and passes upstream status and headers through', async () => {
    h.upstream.handle((_req, res) => {
      res.writeHead(418, { 'content-type': 'application/json', 'x-upstream-thing': 'yes', 'set-cookie': 'a=b' });
      res.end(JSON.stringify({ error: { message: 'teapot' } }));
    });
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions?foo=bar%20baz', {
      body: { model: 'gpt-4o-mini', messages: [] },
    });
    expect(res.status).toBe(418);
    expect(res.headers.get('x-upstream-thing')).toBe('yes');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await res.json()).toEqual({ error: { message: 'teapot' } });
    const id = res.headers.get('x-service-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(h.upstream.requests[0]!.url).toBe('/v1/chat/completions?foo=bar%20baz');
    const [row] = await h.rows(1, { id });
    expect(row).toMatchObject({ status_code: 418, prompt_tokens: 0, completion_tokens: 0 });
  });

  it('streams chunk by chunk and reads usage from the final usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(TEXT_PARTS.join(''));
    expect(usage).toMatchObject({ prompt_tokens: USAGE.prompt, completion_tokens: USAGE.completion });
    const [row] = await h.rows(1, { streamed: true });
    expect(row).toMatchObject({
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.completion,
      tokens_estimated: false,
      status_code: 200,
    });
    expect(row!.cost_usd).toBeCloseTo(expectedCost('gpt-4o-mini'), 12);
    expect(row!.response_body).toContain('data: ');
  });

  it('estimates tokens with a tokenizer when a stream carries no usage, never logging zero', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Tell me something nice about gateways' }],
      stream: true,
    });
    for await (const _ of stream) {
      // drain
    }
    const [row] = await h.rows(1, { streamed: true, tokens_estimated: true });
    expect(row!.completion_tokens).toBeGreaterThan(0);
    expect(row!.prompt_tokens).toBeGreaterThan(0);
    expect(row!.total_tokens).toBe(row!.prompt_tokens + row!.completion_tokens);
    expect(Number(row!.cost_usd)).toBeGreaterThan(0);
  });

  it('delivers the first SSE chunk before the upstream finishes (no buffering)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.upstream.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'first' } }], model: 'gpt-4o-mini' })}\n\n`,
      );
      await gate;
      res.end('data: [DONE]\n\n');
    });
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', {
      body: { model: 'gpt-4o-mini', stream: true, messages: [] },
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toContain('first');
    release();
    while (!(await reader.read()).done) {
      // drain
    }
    await h.rows(1, { streamed: true });
  });

  it('logs a row per call for every OpenAI-compatible provider with its own cost', async () => {
    const cases: [string, string, string][] = [
      ['mistral', 'mistral-large-latest', 'mistral'],
      ['groq', 'llama-3.3-70b-versatile', 'groq'],
      ['deepseek', 'deepseek-chat', 'deepseek'],
      ['xai', 'grok-2', 'x-ai'],
      ['together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', 'together'],
      ['openrouter', 'openai/gpt-4o', 'openrouter'],
    ];
    for (const [slug, model] of cases) {
      const res = await proxyFetch(h, slug, '/v1/chat/completions', {
        body: { model, messages: [{ role: 'user', content: 'x' }] },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    for (const [slug, model, pricesId] of cases) {
      const [row] = await h.rows(1, { provider: slug });
      const price = calcPrice({ input_tokens: USAGE.prompt, output_tokens: USAGE.completion }, model, {
        providerId: pricesId,
      })!.total_price;
      expect(row).toMatchObject({ model, prompt_tokens: USAGE.prompt, completion_tokens: USAGE.completion });
      expect(row!.cost_usd).toBeCloseTo(price, 12);
      const sent = h.upstream.requests.find((r) => r.json?.model === model)!;
      expect(sent.headers.authorization).toBe(`Bearer ${PROVIDER_SECRET(slug)}`);
    }
  });

  it('records an unknown model with null cost, not zero', async () => {
    await client.chat.completions.create({
      model: 'totally-made-up-model-9000',
      messages: [{ role: 'user', content: 'x' }],
    });
    const [row] = await h.rows(1, { model: 'totally-made-up-model-9000' });
    expect(row!.cost_usd).toBeNull();
    expect(row!.prompt_tokens).toBe(USAGE.prompt);
  });
});
