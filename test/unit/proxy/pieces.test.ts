import { cacheKey } from '../../../src/proxy/cache';
import { downstreamResponseHeaders, upstreamRequestHeaders } from '../../../src/proxy/headers';
import { maskSecrets } from '../../../src/proxy/masking';
import { upstreamPathOf } from '../../../src/proxy/call';
import {
  applyProviderAuth,
  baseUrlFor,
  providers,
  requestModel,
  requestWantsStream,
} from '../../../src/providers/providers';
import { parseByteSize, storableText } from '../../../src/proxy/request-body';
import { parsePromptRef } from '../../../src/prompts/ref';
import { parseCacheTtl, parseServiceHeaders, parseTraceparent } from '../../../src/proxy/service-headers';
import { countTokens, promptText } from '../../../src/proxy/tokenizer';
import { loadConfig } from '../../../src/config';

describe('masking', () => {
  it.each([
    'sk-abc123def456',
    'sk-proj-abcDEF_123-xyz',
    'sk-ant-api03-abcdefgh',
    'AIzaSyD-1234567890abcdefghijklmnopqrstu',
    'sl_live_abcdefghijklmnop',
    'sl_live_pub_abcdefghijklmnop',
  ])('masks %s wherever it appears', (key) => {
    for (const text of [key, `"${key}"`, `Bearer ${key}.`, `x=${key}&y=1`, `{"k":"${key}"}\n`]) {
      const out = maskSecrets(text);
      expect(out).not.toContain(key);
      expect(out).toContain('[REDACTED]');
    }
  });

  it('leaves ordinary words alone', () => {
    const t = 'a task-based, risk-free desk-top plan; sk- alone; AIza; sl_live_';
    expect(maskSecrets(t)).toBe(t);
  });
});

describe('service headers', () => {
  it('cache TTL rules', () => {
    expect(parseCacheTtl('true')).toBe(3600);
    expect(parseCacheTtl('TRUE')).toBe(3600);
    expect(parseCacheTtl('60')).toBe(60);
    expect(parseCacheTtl('86400')).toBe(86400);
    expect(parseCacheTtl('86401')).toBe(86400);
    expect(parseCacheTtl('99999999999999999999')).toBeNull();
    for (const bad of ['0', '-1', '1.5', '1e3', 'abc', '', 'false', undefined]) expect(parseCacheTtl(bad)).toBeNull();
  });

  it('prompt references', () => {
    expect(parsePromptRef('greet@3')).toEqual({ kind: 'name', name: 'greet', version: 3 });
    expect(parsePromptRef('team/greet.v2@latest')).toEqual({ kind: 'name', name: 'team/greet.v2', version: 'latest' });
    expect(parsePromptRef('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toEqual({
      kind: 'id',
      id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    });
    for (const bad of [
      'greet',
      'greet@',
      '@1',
      'greet@0',
      'greet@01',
      'greet@-1',
      'greet@1.5',
      'gr eet@1',
      'greet@LATEST',
    ])
      expect(parsePromptRef(bad)).toBeNull();
  });

  it('log-body mode and ids', () => {
    expect(parseServiceHeaders({}).logBody).toBe('full');
    expect(parseServiceHeaders({ 'x-service-log-body': 'META' }).logBody).toBe('meta');
    expect(() => parseServiceHeaders({ 'x-service-log-body': 'all' })).toThrow(/full, meta, none/);
    expect(() => parseServiceHeaders({ 'x-service-user-id': 'x'.repeat(257) })).toThrow(/at most 256/);
    expect(parseServiceHeaders({ 'x-service-user-id': ' u1 ', 'x-service-session-id': '' })).toMatchObject({
      userId: 'u1',
      sessionId: null,
    });
  });

  it('trace links: x-service-trace-id/span-id, else a valid W3C traceparent', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(parseServiceHeaders({ traceparent: tp })).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
    });
    expect(parseServiceHeaders({ traceparent: tp.toUpperCase() })).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(parseServiceHeaders({ traceparent: tp, 'x-service-trace-id': 'mine' })).toMatchObject({
      traceId: 'mine',
      spanId: null,
    });
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
    });
    for (const bad of [
      undefined,
      '',
      'garbage',
      `${tp}-extra`,
      tp.replace(/^00/, 'ff'),
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
    ]) {
      expect(parseTraceparent(bad)).toBeNull();
    }
    expect(parseServiceHeaders({ traceparent: 'garbage' })).toMatchObject({ traceId: null, spanId: null });
  });
});

describe('header filtering', () => {
  it('drops service, hop-by-hop, connection-listed and credential headers; narrows accept-encoding', () => {
    const out = upstreamRequestHeaders({
      host: 'gw',
      authorization: 'Bearer sl_live_x',
      'x-api-key': 'sl_live_x',
      'x-goog-api-key': 'sl_live_x',
      'x-service-user-id': 'u',
      'x-service-whatever': '1',
      connection: 'keep-alive, x-hop',
      'x-hop': '1',
      'transfer-encoding': 'chunked',
      'content-length': '10',
      'content-type': 'application/json',
      'accept-encoding': 'gzip, deflate, br, zstd',
      'openai-beta': 'assistants=v2',
    });
    expect(out).toEqual({
      'content-type': 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      'openai-beta': 'assistants=v2',
    });
    expect(upstreamRequestHeaders({ 'accept-encoding': 'zstd' })['accept-encoding']).toBe('identity');
  });

  it('response: drops hop-by-hop and cookies, keeps the rest', () => {
    expect(
      downstreamResponseHeaders({
        'content-type': 'text/event-stream',
        connection: 'close',
        'set-cookie': ['a=b'],
        'x-request-id': 'r',
        'transfer-encoding': 'chunked',
        'x-service-cache-status': 'HIT',
      }),
    ).toEqual({ 'content-type': 'text/event-stream', 'x-request-id': 'r' });
  });
});

describe('providers', () => {
  const config = loadConfig({
    PROVIDER_OPENAI_BASE_URL: 'http://127.0.0.1:9/',
    PROVIDER_OLLAMA_BASE_URL: 'http://ollama.local:11434',
  });

  it('auth styles', () => {
    const h = (slug: keyof typeof providers, key: string | null, init: Record<string, string> = {}) => {
      const out: Record<string, string | string[]> = { ...init };
      applyProviderAuth(providers[slug], out, key);
      return out;
    };
    for (const slug of ['openai', 'mistral', 'groq', 'deepseek', 'xai', 'together', 'openrouter'] as const)
      expect(h(slug, 'k')).toEqual({ authorization: 'Bearer k' });
    expect(h('anthropic', 'k')).toEqual({ 'x-api-key': 'k', 'anthropic-version': '2023-06-01' });
    expect(h('anthropic', 'k', { 'anthropic-version': '2024-01-01' })).toEqual({
      'x-api-key': 'k',
      'anthropic-version': '2024-01-01',
    });
    expect(h('gemini', 'k')).toEqual({ 'x-goog-api-key': 'k' });
    expect(h('ollama', null)).toEqual({});
  });

  it('base URLs: config for public providers, the stored URL only for self-hosted ones', () => {
    expect(baseUrlFor(providers.openai, config, 'http://evil.example')).toBe('http://127.0.0.1:9');
    expect(baseUrlFor(providers.ollama, config, 'http://10.0.0.5:11434/')).toBe('http://10.0.0.5:11434');
    expect(baseUrlFor(providers.ollama, config, null)).toBe('http://ollama.local:11434');
    expect(loadConfig({}).PROVIDER_ANTHROPIC_BASE_URL).toBe('https://api.anthropic.com');
  });

  it('model and stream detection', () => {
    expect(requestModel(providers.openai, '/v1/chat/completions', { model: 'gpt-4o' })).toBe('gpt-4o');
    expect(requestModel(providers.gemini, '/v1beta/models/gemini-1.5-pro:generateContent', {})).toBe('gemini-1.5-pro');
    expect(requestWantsStream(providers.gemini, '/v1beta/models/x:streamGenerateContent?alt=sse', {})).toBe(true);
    expect(requestWantsStream(providers.openai, '/v1/chat/completions', { stream: true })).toBe(true);
    expect(requestWantsStream(providers.openai, '/v1/chat/completions', { stream: false })).toBe(false);
    expect(requestWantsStream(providers.ollama, '/api/chat', {})).toBe(true);
    expect(requestWantsStream(providers.ollama, '/api/chat', { stream: false })).toBe(false);
  });

  it('upstream path: byte-exact, no dot segments, Gemini key removed', () => {
    expect(upstreamPathOf('/proxy/openai/v1/chat/completions?x=a%20b', providers.openai)).toBe(
      '/v1/chat/completions?x=a%20b',
    );
    expect(
      upstreamPathOf('/proxy/gemini/v1beta/models/m:generateContent?key=sl_live_x&alt=sse', providers.gemini),
    ).toBe('/v1beta/models/m:generateContent?alt=sse');
    expect(upstreamPathOf('/proxy/gemini/v1beta/models?key=k', providers.gemini)).toBe('/v1beta/models');
    expect(() => upstreamPathOf('/proxy/openai/v1/../x', providers.openai)).toThrow(/dot segments/);
    expect(() => upstreamPathOf('/proxy/openai/v1/%2E%2E/x', providers.openai)).toThrow(/dot segments/);
    expect(() => upstreamPathOf('/proxy/openai/v1/%zz', providers.openai)).toThrow(/percent/);
  });
});

describe('cache key', () => {
  const base = {
    apiKeyId: 'k1',
    method: 'POST',
    provider: 'openai',
    path: '/v1/chat/completions',
    body: Buffer.from('{"a":1}'),
  };
  it('differs for any different part and is stable otherwise', () => {
    const k = cacheKey(base);
    expect(cacheKey({ ...base })).toBe(k);
    for (const change of [
      { apiKeyId: 'k2' },
      { method: 'PUT' },
      { provider: 'groq' },
      { path: '/v1/x' },
      { body: Buffer.from('{"a": 1}') },
    ]) {
      expect(cacheKey({ ...base, ...change })).not.toBe(k);
    }
    // Field boundaries are unambiguous.
    expect(cacheKey({ ...base, apiKeyId: 'ab', method: 'c' })).not.toBe(
      cacheKey({ ...base, apiKeyId: 'a', method: 'bc' }),
    );
  });
});

describe('tokenizer and helpers', () => {
  it('collects prompt text from any provider shape and counts tokens without choking on special tokens', () => {
    const text = promptText({
      system: 'sys',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      contents: [{ parts: [{ text: 'gem' }] }],
      model: 'x',
    });
    expect(text.split('\n').sort()).toEqual(['gem', 'hello', 'sys']);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(0);
    expect(countTokens('')).toBe(0);
  });

  it('byte sizes and storable text', () => {
    expect(parseByteSize('20mb')).toBe(20 * 1024 * 1024);
    expect(parseByteSize('512KB')).toBe(512 * 1024);
    expect(storableText('a\u0000b', 10)).toBe('ab');
    expect(storableText('abcdef', 3)).toMatch(/^abc\n\[truncated/);
    // A cut through a surrogate pair leaves no lone half; lone surrogates become U+FFFD.
    expect(storableText('a\ud83d\ude00b', 2)).toMatch(/^a\ufffd\n\[truncated/);
    expect(storableText('x\ud800y', 10)).toBe('x\ufffdy');
  });
});
