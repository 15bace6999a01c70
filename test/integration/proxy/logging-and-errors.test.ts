import http from 'node:http';
import { api } from '../../helpers/auth';
import { sendJson, USAGE } from '../../helpers/fake-upstream';
import { freePort } from '../../../src/util/net';
import { PROVIDER_SECRET, proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

const chat = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });

describe('proxy: body modes, masking, auth and errors', () => {
  let h: ProxyHarness;
  beforeAll(async () => {
    h = await startProxyHarness({
      providers: ['openai', 'anthropic'],
      env: { PROXY_UPSTREAM_TIMEOUT_MS: '400', PROXY_BODY_LIMIT: '64kb' },
    });
  });
  afterAll(() => h.stop());
  beforeEach(() => h.upstream.reset());

  const call = async (headers: Record<string, string>, body: unknown = chat('hello')) => {
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { headers, body });
    await res.arrayBuffer();
    return res;
  };

  describe('x-service-log-body', () => {
    const ids = { 'x-service-user-id': 'user-7', 'x-service-session-id': 'session-7' };
    it.each([
      ['full (default)', {}, true, true],
      ['full', { 'x-service-log-body': 'full' }, true, true],
      ['meta', { 'x-service-log-body': 'meta' }, false, true],
      ['none', { 'x-service-log-body': 'none' }, false, false],
    ])('%s', async (_label, modeHeader, bodies, ids_) => {
      const res = await call({ ...ids, ...modeHeader });
      const [row] = await h.rows(1, { id: res.headers.get('x-service-request-id') });
      expect(row).toMatchObject({
        model: 'gpt-4o-mini',
        prompt_tokens: USAGE.prompt,
        completion_tokens: USAGE.completion,
        status_code: 200,
      });
      expect(row!.cost_usd).toBeGreaterThan(0);
      expect(row!.latency_ms).toBeGreaterThanOrEqual(0);
      if (bodies) {
        expect(row!.request_body).toContain('hello');
        expect(row!.response_body).toContain('Hello from the fake upstream.');
      } else {
        expect(row!.request_body).toBe('');
        expect(row!.response_body).toBe('');
      }
      expect(row!.user_id).toBe(ids_ ? 'user-7' : null);
      expect(row!.session_id).toBe(ids_ ? 'session-7' : null);
    });

    it('rejects an unknown mode with 400 before anything goes upstream', async () => {
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', {
        headers: { 'x-service-log-body': 'everything' },
        body: chat('x'),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, code: 'invalid_log_body_mode' });
      expect(h.upstream.requests).toHaveLength(0);
    });
  });

  it('masks all five key patterns in stored bodies (full mode), leaving the forwarded body byte-exact', async () => {
    const secrets = [
      'sk-abcdefghijklmnopqrstuvwxyz012345',
      'sk-proj-AbCdEf0123456789_xyz-QRS',
      'sk-ant-api03-ZYXWVU9876543210abcdef',
      'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv',
      'sl_live_0123456789abcdefABCDEF0123456789abcdefXYZ',
    ];
    const content = `keys: ${secrets.join(' | ')} and task-based risk-free words stay`;
    h.upstream.handle((req, res) =>
      sendJson(res, 200, {
        ...req.json,
        echoed: content,
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
    const raw = JSON.stringify(chat(content));
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { body: raw });
    expect(await res.json()).toMatchObject({ echoed: content });
    expect(h.upstream.requests[0]!.body.toString()).toBe(raw);
    const [row] = await h.rows(1, { id: res.headers.get('x-service-request-id') });
    for (const s of secrets) {
      expect(row!.request_body).not.toContain(s);
      expect(row!.response_body).not.toContain(s);
    }
    expect(row!.request_body).toContain('[REDACTED]');
    expect(row!.request_body).toContain('task-based risk-free words stay');
    // The fake echoes the request (5 keys) and adds them once more.
    expect(row!.response_body.match(/\[REDACTED\]/g)).toHaveLength(10);
  });

  describe('caller authentication', () => {
    it.each([
      ['missing', 401, null],
      ['unknown', 401, 'sl_live_0000000000000000000000000000000000000000000'],
      ['not a service key', 401, 'sk-some-openai-key'],
    ])('%s key → %d and nothing upstream', async (_l, status, key) => {
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { key, body: chat('x') });
      expect(res.status).toBe(status);
      expect(((await res.json()) as { success: boolean }).success).toBe(false);
      expect(h.upstream.requests).toHaveLength(0);
    });

    it('revoked key → 401', async () => {
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { key: h.tenant.revokedKey, body: chat('x') });
      expect(res.status).toBe(401);
      expect(h.upstream.requests).toHaveLength(0);
    });

    it('a key revoked after use is refused on the very next call (cache evicted by notification)', async () => {
      const created = await api(h.app, 'POST', '/api/v1/api-keys', {
        token: h.tenant.admin.token,
        orgId: h.tenant.orgId,
        body: { project_id: h.tenant.projectId, name: 'short-lived', scope: 'full' },
      });
      const key = created.body.data.key as string;
      // Let the invalidation listener connect so the key really is cached.
      const proxy = h.app.runtime.services!.proxy;
      for (let i = 0; i < 100 && !proxy.caches.connected; i++) await new Promise((r) => setTimeout(r, 20));
      expect(proxy.caches.connected).toBe(true);
      for (let i = 0; i < 2; i++) {
        const ok = await proxyFetch(h, 'openai', '/v1/chat/completions', { key, body: chat('x') });
        expect(ok.status).toBe(200);
        await ok.arrayBuffer();
      }
      const revoke = await api(h.app, 'PATCH', `/api/v1/api-keys/${created.body.data.id}`, {
        token: h.tenant.admin.token,
        orgId: h.tenant.orgId,
        body: { is_active: false },
      });
      expect(revoke.status).toBe(200);
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { key, body: chat('x') });
      expect(res.status).toBe(401);
      expect(h.upstream.requests).toHaveLength(2);
    });

    it('a replaced provider key is used on the very next call', async () => {
      const first = await proxyFetch(h, 'anthropic', '/v1/messages', {
        body: { model: 'claude-3-5-sonnet-20241022', max_tokens: 5, messages: [] },
      });
      await first.arrayBuffer();
      await h.setProviderKey('anthropic', 'sk-ant-rotated-key-000000');
      const second = await proxyFetch(h, 'anthropic', '/v1/messages', {
        body: { model: 'claude-3-5-sonnet-20241022', max_tokens: 5, messages: [] },
      });
      await second.arrayBuffer();
      expect(h.upstream.requests.map((r) => r.headers['x-api-key'])).toEqual([
        PROVIDER_SECRET('anthropic'),
        'sk-ant-rotated-key-000000',
      ]);
    });

    it('public key → 403', async () => {
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { key: h.tenant.publicKey, body: chat('x') });
      expect(res.status).toBe(403);
      expect(h.upstream.requests).toHaveLength(0);
    });

    it('a dashboard JWT is not accepted', async () => {
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { key: h.tenant.admin.token, body: chat('x') });
      expect(res.status).toBe(401);
      expect(h.upstream.requests).toHaveLength(0);
    });
  });

  it('unknown provider → 404', async () => {
    const res = await proxyFetch(h, 'nosuchai', '/v1/chat/completions', { body: chat('x') });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'unknown_provider' });
  });

  it('no provider key stored → 424 provider_key_missing', async () => {
    const res = await proxyFetch(h, 'mistral', '/v1/chat/completions', { body: chat('x') });
    expect(res.status).toBe(424);
    expect(await res.json()).toMatchObject({ code: 'provider_key_missing', provider: 'mistral' });
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('body over the limit → 413 and nothing upstream', async () => {
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { body: chat('x'.repeat(70 * 1024)) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'payload_too_large' });
    expect(h.upstream.requests).toHaveLength(0);
  });

  it.each(['/v1/../admin', '/v1/%2e%2e/admin'])('dot segments in the upstream path (%s) → 400', async (path) => {
    // Raw http: fetch would normalise the path before sending it.
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(h.app.url);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: `/proxy/openai${path}`,
          method: 'GET',
          headers: { authorization: `Bearer ${h.tenant.fullKey}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('upstream timeout → 504 JSON, recorded', async () => {
    h.upstream.handle(() => {
      /* never answers */
    });
    const res = await proxyFetch(h, 'openai', '/v1/chat/completions', { body: chat('slow') });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ success: false, code: 'upstream_timeout' });
    const [row] = await h.rows(1, { status_code: 504 });
    expect(row).toMatchObject({ error: 'upstream_timeout', model: 'gpt-4o-mini', provider: 'openai' });
  });

  it('upstream unreachable → 502 JSON, recorded', async () => {
    const port = await freePort();
    const r = await api(h.app, 'PUT', '/api/v1/provider-keys', {
      token: h.tenant.admin.token,
      orgId: h.tenant.orgId,
      body: { project_id: h.tenant.projectId, provider: 'ollama', base_url: `http://127.0.0.1:${port}` },
    });
    expect([200, 201]).toContain(r.status);
    const res = await proxyFetch(h, 'ollama', '/api/chat', { body: { model: 'llama3', stream: false, messages: [] } });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ success: false, code: 'upstream_unreachable' });
    const [row] = await h.rows(1, { status_code: 502 });
    expect(row).toMatchObject({ provider: 'ollama', error: 'upstream_unreachable', self_hosted: true, cost_usd: null });
  });

  it('hop-by-hop and credential headers are not forwarded; other caller headers are', async () => {
    await new Promise<void>((resolve, reject) => {
      const u = new URL(`${h.base('openai')}/v1/chat/completions`);
      const body = JSON.stringify(chat('x'));
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${h.tenant.fullKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            connection: 'keep-alive, x-drop-me',
            'x-drop-me': '1',
            'keep-alive': 'timeout=5',
            'proxy-authorization': 'Basic abc',
            te: 'trailers',
            cookie: 'session=1',
            'openai-organization': 'org-123',
            'x-custom': 'kept',
          },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    const got = h.upstream.requests[0]!.headers;
    for (const k of ['x-drop-me', 'keep-alive', 'proxy-authorization', 'te', 'cookie']) expect(got[k]).toBeUndefined();
    expect(got['openai-organization']).toBe('org-123');
    expect(got['x-custom']).toBe('kept');
  });
});
