import { startTestApp, type TestApp } from '../../helpers/app';
import { api } from '../../helpers/auth';
import { USAGE } from '../../helpers/fake-upstream';
import { proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('proxy: per-end-user rate limits', () => {
  let h: ProxyHarness;
  let replica: TestApp;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'] });
    // A second api replica on the same database.
    replica = await startTestApp({
      role: 'api',
      database: h.app.database,
      env: { PROVIDER_OPENAI_BASE_URL: h.upstream.url, MASTER_KEY: h.app.config.MASTER_KEY! },
    });
  });
  afterAll(async () => {
    await replica.stop();
    await h.stop();
  });
  beforeEach(() => h.upstream.reset());

  const admin = () => ({ token: h.tenant.admin.token, orgId: h.tenant.orgId });
  const setLimit = async (body: Record<string, unknown>) => {
    const r = await api(h.app, 'PUT', '/api/v1/rate-limits', {
      ...admin(),
      body: { project_id: h.tenant.projectId, ...body },
    });
    expect([200, 201]).toContain(r.status);
    return r.body.data;
  };

  it('validates the configuration and needs admin or editor to write', async () => {
    const bad = await api(h.app, 'PUT', '/api/v1/rate-limits', {
      ...admin(),
      body: { project_id: h.tenant.projectId, window_seconds: 60 },
    });
    expect(bad.status).toBe(400);
    const zero = await api(h.app, 'PUT', '/api/v1/rate-limits', {
      ...admin(),
      body: { project_id: h.tenant.projectId, window_seconds: 0, requests_per_window: 5 },
    });
    expect(zero.status).toBe(400);
    const viewer = await api(h.app, 'PUT', '/api/v1/rate-limits', {
      token: h.tenant.viewer.token,
      orgId: h.tenant.orgId,
      body: { project_id: h.tenant.projectId, window_seconds: 60, requests_per_window: 5 },
    });
    expect(viewer.status).toBe(403);
    const editor = await api(h.app, 'PUT', '/api/v1/rate-limits', {
      token: h.tenant.editor.token,
      orgId: h.tenant.orgId,
      body: { project_id: h.tenant.projectId, window_seconds: 60, requests_per_window: 5 },
    });
    expect(editor.status).toBe(201);
    const list = await api(h.app, 'GET', `/api/v1/rate-limits?project_id=${h.tenant.projectId}`, {
      token: h.tenant.viewer.token,
      orgId: h.tenant.orgId,
    });
    expect(list.body.data).toEqual([
      expect.objectContaining({ requests_per_window: 5, window_seconds: 60, tokens_per_window: null }),
    ]);
    const del = await api(h.app, 'DELETE', `/api/v1/rate-limits?project_id=${h.tenant.projectId}`, admin());
    expect(del.status).toBe(204);
  });

  it(
    '50 concurrent calls against a cap of 10 across two replicas: exactly 10 pass, ' + 'the rest get 429 with headers',
    async () => {
      await setLimit({ requests_per_window: 10, window_seconds: 3600 });
      const urls = [h.app.url, replica.url];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${urls[i % 2]}/proxy/openai/v1/chat/completions`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${h.tenant.fullKey}`,
              'content-type': 'application/json',
              'x-service-user-id': 'burst-user',
            },
            body: JSON.stringify(chat),
          }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.text() })),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const limited = results.filter((r) => r.status === 429);
      expect(ok).toHaveLength(10);
      expect(limited).toHaveLength(40);
      expect(h.upstream.requests).toHaveLength(10);
      const l = limited[0]!;
      expect(Number(l.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(l.headers.get('ratelimit-limit')).toBe('10');
      expect(l.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(l.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      expect(JSON.parse(l.body)).toMatchObject({ success: false, code: 'rate_limited' });
      const remaining = ok.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
      expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

      // Other end users have their own bucket; calls without a user id are not capped.
      const other = await proxyFetch(h, 'openai', '/v1/chat/completions', {
        headers: { 'x-service-user-id': 'someone-else' },
        body: chat,
      });
      expect(other.status).toBe(200);
      const anon = await proxyFetch(h, 'openai', '/v1/chat/completions', { body: chat });
      expect(anon.status).toBe(200);

      const usage = await api(
        h.app,
        'GET',
        `/api/v1/rate-limits/usage?project_id=${h.tenant.projectId}&user_id=burst-user`,
        admin(),
      );
      expect(usage.body.data).toMatchObject({ requests: 10, requests_per_window: 10 });
    },
  );

  it('a window resets: with a 2-second window the cap applies within it and lifts in the next', async () => {
    await setLimit({ requests_per_window: 1, window_seconds: 2 });
    const untilNextWindow = () => new Promise((r) => setTimeout(r, 2000 - (Date.now() % 2000) + 20));
    const call = () =>
      proxyFetch(h, 'openai', '/v1/chat/completions', { headers: { 'x-service-user-id': 'window-user' }, body: chat });
    await untilNextWindow(); // windows are aligned to the epoch, so both calls land in one window
    const first = await call();
    const second = await call();
    expect([first.status, second.status]).toEqual([200, 429]);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(second.headers.get('retry-after'))).toBeLessThanOrEqual(2);
    await untilNextWindow();
    const third = await call();
    expect(third.status).toBe(200);
  });

  it('token cap: calls are admitted while the window total is under it', async () => {
    const perCall = USAGE.prompt + USAGE.completion; // 18
    await setLimit({ tokens_per_window: perCall + 2, window_seconds: 3600 });
    const call = () =>
      proxyFetch(h, 'openai', '/v1/chat/completions', { headers: { 'x-service-user-id': 'token-user' }, body: chat });
    const a = await call();
    expect(a.status).toBe(200);
    await h.rows(1, { user_id: 'token-user' });
    const b = await call(); // 18 < 20: admitted
    expect(b.status).toBe(200);
    await h.rows(2, { user_id: 'token-user' });
    const c = await call(); // 36 >= 20
    expect(c.status).toBe(429);
    expect(c.headers.get('ratelimit-limit')).toBe(String(perCall + 2));
    expect(c.headers.get('ratelimit-remaining')).toBe('0');
    expect(h.upstream.requests).toHaveLength(2);
  });

  it(
    'another replica drops its memo on the change notification: ' +
      'a key revoked via one replica is refused by the other',
    async () => {
      const created = await api(h.app, 'POST', '/api/v1/api-keys', {
        ...admin(),
        body: { project_id: h.tenant.projectId, name: 'replica-key', scope: 'full' },
      });
      const key = created.body.data.key as string;
      const viaReplica = () =>
        fetch(`${replica.url}/proxy/openai/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(chat),
        }).then(async (r) => (await r.arrayBuffer(), r.status));
      const proxy = replica.runtime.services!.proxy;
      for (let i = 0; i < 100 && !proxy.caches.connected; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await viaReplica()).toBe(200);
      expect(await viaReplica()).toBe(200); // now served from the replica's memo
      const revoke = await api(h.app, 'PATCH', `/api/v1/api-keys/${created.body.data.id}`, {
        ...admin(),
        body: { is_active: false },
      });
      expect(revoke.status).toBe(200);
      let status = 0;
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && (status = await viaReplica()) === 200)
        await new Promise((r) => setTimeout(r, 10));
      expect(status).toBe(401);
    },
  );
});
