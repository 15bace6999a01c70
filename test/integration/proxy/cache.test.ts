import { api } from '../../helpers/auth';
import { sendJson, sendSse, openaiCompletion } from '../../helpers/fake-upstream';
import { proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('proxy: response cache', () => {
  let h: ProxyHarness;
  let secondKey: string;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'] });
    const r = await api(h.app, 'POST', '/api/v1/api-keys', {
      token: h.tenant.admin.token,
      orgId: h.tenant.orgId,
      body: { project_id: h.tenant.projectId, name: 'second', scope: 'full' },
    });
    secondKey = r.body.data.key;
  });
  afterAll(() => h.stop());
  beforeEach(async () => {
    h.upstream.reset();
    await h.app.database.db('proxy_cache').del();
  });

  const send = async (
    cache: string | undefined,
    body: unknown = chat('same'),
    opts: { key?: string; path?: string } = {},
  ) => {
    const res = await proxyFetch(h, 'openai', opts.path ?? '/v1/chat/completions', {
      key: opts.key,
      headers: cache === undefined ? {} : { 'x-service-cache': cache },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { res, text, status: res.headers.get('x-service-cache-status') };
  };
  const ttlOfStored = async () => {
    const { rows } = await h.app.database.db.raw(
      `select extract(epoch from expires_at - created_at)::int as ttl from proxy_cache`,
    );
    return rows.map((r: { ttl: number }) => r.ttl);
  };
  const stored = async (n: number) => {
    const deadline = Date.now() + 3000;
    while (Number((await h.app.database.db('proxy_cache').count({ c: '*' }))[0]!.c) < n) {
      if (Date.now() > deadline) throw new Error('cache entry was not stored');
      await new Promise((r) => setTimeout(r, 15));
    }
  };

  it('off by default: no header, no entry, no cache status', async () => {
    const a = await send(undefined);
    const b = await send(undefined);
    expect(a.status).toBeNull();
    expect(b.status).toBeNull();
    expect(h.upstream.requests).toHaveLength(2);
  });

  it(
    'a finished cacheable answer is visible to the very ' + 'next identical call (stored before the last byte)',
    async () => {
      // No waiting for the store between the two calls: the second one starts when the first has ended.
      for (let i = 0; i < 20; i++) {
        const body = chat(`back-to-back ${i}`);
        const a = await send('true', body);
        const b = await send('true', body);
        expect([i, a.status, b.status]).toEqual([i, 'MISS', 'HIT']);
        expect(b.text).toBe(a.text);
      }
      expect(h.upstream.requests).toHaveLength(20);
    },
  );

  it(
    'true: MISS then HIT served without calling the provider, ' + 'identical body, logged as cache_hit with cost 0',
    async () => {
      const a = await send('true');
      expect(a.status).toBe('MISS');
      await stored(1);
      const b = await send('true');
      expect(b.status).toBe('HIT');
      expect(b.text).toBe(a.text);
      expect(b.res.headers.get('content-type')).toMatch(/application\/json/);
      expect(h.upstream.requests).toHaveLength(1);
      expect(await ttlOfStored()).toEqual([3600]);
      const [row] = await h.rows(1, { id: b.res.headers.get('x-service-request-id') });
      expect(row).toMatchObject({ cache_hit: true, status_code: 200, model: 'gpt-4o-mini', prompt_tokens: 11 });
      expect(Number(row!.cost_usd)).toBe(0);
      const [miss] = await h.rows(1, { id: a.res.headers.get('x-service-request-id') });
      expect(miss!.cache_hit).toBe(false);
      expect(Number(miss!.cost_usd)).toBeGreaterThan(0);
    },
  );

  it.each([
    ['120', 120],
    ['86400', 86400],
    ['999999', 86400],
  ])('TTL %s → %d seconds (capped at 86400)', async (v, ttl) => {
    await send(v);
    await stored(1);
    expect(await ttlOfStored()).toEqual([ttl]);
  });

  it.each(['0', '-5', '1.5', 'abc', 'false', ''])('invalid value %p → no caching and no cache status', async (v) => {
    const a = await send(v);
    const b = await send(v);
    expect(a.status).toBeNull();
    expect(b.status).toBeNull();
    expect(h.upstream.requests).toHaveLength(2);
    expect(await ttlOfStored()).toEqual([]);
  });

  it('a hit needs the same key, path and byte-identical body', async () => {
    await send('true', JSON.stringify(chat('same')));
    await stored(1);
    const other = [
      await send('true', JSON.stringify(chat('same')), { key: secondKey }), // other API key
      await send('true', JSON.stringify(chat('same')), { path: '/v1/chat/completions?variant=1' }), // other path
      await send('true', JSON.stringify(chat('same'), null, 1)), // same JSON, other bytes
      await send('true', JSON.stringify(chat('different'))),
    ];
    expect(other.map((o) => o.status)).toEqual(['MISS', 'MISS', 'MISS', 'MISS']);
    expect(h.upstream.requests).toHaveLength(5);
    expect((await send('true', JSON.stringify(chat('same')))).status).toBe('HIT');
    expect(h.upstream.requests).toHaveLength(5);
  });

  it('expires exactly at its TTL', async () => {
    await send('2');
    await stored(1);
    const { rows } = await h.app.database.db.raw(
      `select extract(epoch from expires_at - created_at) as ttl, ` +
        `extract(epoch from expires_at - now()) as left_s from proxy_cache`,
    );
    expect(Number(rows[0].ttl)).toBe(2);
    expect((await send('2')).status).toBe('HIT');
    await new Promise((r) => setTimeout(r, Math.max(0, Number(rows[0].left_s) * 1000) + 50));
    expect((await send('2')).status).toBe('MISS');
    expect(h.upstream.requests).toHaveLength(2);
    await stored(1); // the miss stores a fresh entry; let it land before the next test clears the table
  });

  it('does not store non-200 answers', async () => {
    h.upstream.handle((req, res) => sendJson(res, 201, openaiCompletion(req.json!.model)));
    await send('true');
    h.upstream.handle((_req, res) => sendJson(res, 500, { error: 'boom' }));
    await send('true');
    await new Promise((r) => setTimeout(r, 100));
    expect(await ttlOfStored()).toEqual([]);
    expect((await send('true')).status).toBe('MISS');
  });

  it('does not store non-JSON answers', async () => {
    h.upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('plain text answer');
    });
    await send('true');
    await new Promise((r) => setTimeout(r, 100));
    expect(await ttlOfStored()).toEqual([]);
  });

  it('does not store bodies of 256 KB or more, stores just under', async () => {
    const padded = (bytes: number) => (_req: unknown, res: import('node:http').ServerResponse) => {
      const base = JSON.stringify({ ...openaiCompletion('gpt-4o-mini'), pad: '' });
      sendJson(res, 200, { ...openaiCompletion('gpt-4o-mini'), pad: 'x'.repeat(bytes - Buffer.byteLength(base)) });
    };
    h.upstream.handle(padded(256 * 1024));
    await send('true', chat('big'));
    await new Promise((r) => setTimeout(r, 100));
    expect(await ttlOfStored()).toEqual([]);
    h.upstream.handle(padded(256 * 1024 - 1));
    await send('true', chat('just under'));
    await stored(1);
    expect((await send('true', chat('just under'))).status).toBe('HIT');
  });

  it('never caches streamed calls', async () => {
    h.upstream.handle((req, res) =>
      sendSse(res, [{ choices: [{ delta: { content: 'hi' } }], model: req.json!.model }], { done: true }),
    );
    const a = await send('true', chat('s', { stream: true }));
    const b = await send('true', chat('s', { stream: true }));
    expect(a.status).toBe('MISS');
    expect(b.status).toBe('MISS');
    expect(h.upstream.requests).toHaveLength(2);
    expect(await ttlOfStored()).toEqual([]);
  });
});
