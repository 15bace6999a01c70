import Anthropic from '@anthropic-ai/sdk';
import { calcPrice } from '@pydantic/genai-prices';
import { sendJson, TEXT_PARTS, USAGE } from '../../helpers/fake-upstream';
import { PROVIDER_SECRET, proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

describe('proxy: Anthropic SDK, Gemini over fetch, Ollama (self-hosted)', () => {
  let h: ProxyHarness;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['anthropic', 'gemini', 'ollama'] });
  });
  afterAll(() => h.stop());
  beforeEach(() => h.upstream.reset());

  const anthropicCost = calcPrice(
    { input_tokens: USAGE.prompt, output_tokens: USAGE.completion },
    'claude-3-5-sonnet-20241022',
    { providerId: 'anthropic' },
  )!.total_price;

  it.each([
    ['apiKey (x-api-key)', (key: string) => ({ apiKey: key })],
    ['authToken (Authorization: Bearer)', (key: string) => ({ authToken: key, apiKey: null })],
  ])('messages.create with the service key as %s', async (_label, creds) => {
    const client = new Anthropic({ ...creds(h.tenant.fullKey), baseURL: h.base('anthropic'), maxRetries: 0 });
    const msg = await client.messages.create(
      { model: 'claude-3-5-sonnet-20241022', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-service-user-id': 'u-anthropic' } },
    );
    expect(msg.content[0]).toMatchObject({ type: 'text', text: TEXT_PARTS.join('') });

    const got = h.upstream.requests[0]!;
    expect(got.path).toBe('/v1/messages');
    expect(got.headers['x-api-key']).toBe(PROVIDER_SECRET('anthropic'));
    // The SDK's own anthropic-version passes through untouched.
    expect(got.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(got.headers.authorization).toBeUndefined();
    expect(JSON.stringify(got.headers)).not.toContain(h.tenant.fullKey);

    const [row] = await h.rows(1, { provider: 'anthropic', user_id: 'u-anthropic' });
    expect(row).toMatchObject({
      model: 'claude-3-5-sonnet-20241022',
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.completion,
      status_code: 200,
    });
    expect(row!.cost_usd).toBeCloseTo(anthropicCost, 12);
    await h.app.database.db('requests').del();
  });

  it('streams Anthropic messages and reads usage from message_start and message_delta', async () => {
    const client = new Anthropic({ apiKey: h.tenant.fullKey, baseURL: h.base('anthropic'), maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'claude-3-5-sonnet-20241022',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    stream.on('text', (t) => (text += t));
    const final = await stream.finalMessage();
    expect(text).toBe(TEXT_PARTS.join(''));
    expect(final.usage.output_tokens).toBe(USAGE.completion);
    const [row] = await h.rows(1, { provider: 'anthropic', streamed: true });
    expect(row).toMatchObject({
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.completion,
      tokens_estimated: false,
    });
    expect(row!.cost_usd).toBeCloseTo(anthropicCost, 12);
  });

  it('adds anthropic-version 2023-06-01 when the caller sends none', async () => {
    const res = await proxyFetch(h, 'anthropic', '/v1/messages', {
      body: { model: 'claude-3-5-sonnet-20241022', max_tokens: 5, messages: [] },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(h.upstream.requests[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(h.upstream.requests[0]!.headers['x-api-key']).toBe(PROVIDER_SECRET('anthropic'));
  });

  it('counts Anthropic cache tokens into the prompt and prices them', async () => {
    h.upstream.handle((req, res) =>
      sendJson(res, 200, {
        id: 'msg',
        type: 'message',
        role: 'assistant',
        model: req.json!.model,
        content: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 },
      }),
    );
    const res = await proxyFetch(h, 'anthropic', '/v1/messages', {
      body: { model: 'claude-3-5-sonnet-20241022', max_tokens: 5, messages: [] },
    });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-service-request-id');
    const [row] = await h.rows(1, { id });
    expect(row).toMatchObject({
      prompt_tokens: 1110,
      completion_tokens: 5,
      total_tokens: 1115,
      cache_read_tokens: 1000,
      cache_write_tokens: 100,
    });
    const price = calcPrice(
      { input_tokens: 1110, output_tokens: 5, cache_read_tokens: 1000, cache_write_tokens: 100 },
      'claude-3-5-sonnet-20241022',
      { providerId: 'anthropic' },
    )!.total_price;
    expect(row!.cost_usd).toBeCloseTo(price, 12);
  });

  it('proxies Gemini generateContent with x-goog-api-key and reads usageMetadata', async () => {
    const res = await fetch(`${h.base('gemini')}/v1beta/models/gemini-2.0-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': h.tenant.fullKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(out.candidates[0].content.parts[0].text).toBe(TEXT_PARTS.join(''));
    const got = h.upstream.requests[0]!;
    expect(got.headers['x-goog-api-key']).toBe(PROVIDER_SECRET('gemini'));
    expect(JSON.stringify(got.headers)).not.toContain(h.tenant.fullKey);
    const [row] = await h.rows(1, { provider: 'gemini' });
    const price = calcPrice({ input_tokens: USAGE.prompt, output_tokens: USAGE.completion }, 'gemini-2.0-flash', {
      providerId: 'google',
    })!.total_price;
    expect(row).toMatchObject({
      model: 'gemini-2.0-flash',
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.completion,
    });
    expect(row!.cost_usd).toBeCloseTo(price, 12);
  });

  it('accepts the key as ?key= for Gemini and never forwards it', async () => {
    const res = await fetch(
      `${h.base('gemini')}/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=${h.tenant.fullKey}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/event-stream/);
    const text = await res.text();
    expect(text).toContain('usageMetadata');
    expect(h.upstream.requests[0]!.url).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    const [row] = await h.rows(1, { provider: 'gemini', streamed: true });
    expect(row).toMatchObject({
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.completion,
      tokens_estimated: false,
    });
    expect(row!.path).not.toContain('key=');
    expect(row!.request_body + row!.response_body).not.toContain(h.tenant.fullKey);
  });

  it('estimates Gemini tokens when usageMetadata is missing', async () => {
    h.upstream.handle((_req, res) =>
      sendJson(res, 200, { candidates: [{ content: { parts: [{ text: 'A reply without usage numbers' }] } }] }),
    );
    const res = await proxyFetch(h, 'gemini', '/v1beta/models/gemini-2.0-flash:generateContent', {
      body: { contents: [{ parts: [{ text: 'question text' }] }] },
    });
    await res.arrayBuffer();
    const [row] = await h.rows(1, { provider: 'gemini', tokens_estimated: true });
    expect(row!.completion_tokens).toBeGreaterThan(0);
    expect(row!.prompt_tokens).toBeGreaterThan(0);
  });

  it(
    'Ollama: base URL from the provider key entry, ' + 'no auth header, NDJSON usage, cost null and self_hosted',
    async () => {
      const res = await proxyFetch(h, 'ollama', '/api/chat', {
        body: { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.status).toBe(200);
      const lines = (await res.text()).trim().split('\n');
      expect(lines).toHaveLength(TEXT_PARTS.length + 1);
      const got = h.upstream.requests[0]!;
      expect(got.headers.authorization).toBeUndefined();
      expect(JSON.stringify(got.headers)).not.toContain(h.tenant.fullKey);
      const [row] = await h.rows(1, { provider: 'ollama' });
      expect(row).toMatchObject({
        model: 'llama3.2',
        prompt_tokens: USAGE.prompt,
        completion_tokens: USAGE.completion,
        self_hosted: true,
        cost_usd: null,
        streamed: true,
      });
    },
  );
});
