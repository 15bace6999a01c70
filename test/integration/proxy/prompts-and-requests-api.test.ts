import { api, type ApiResult } from '../../helpers/auth';
import { proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

const chat = (content = 'hi') => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });

describe('prompts resource, prompt-version links, request log API and request.created events', () => {
  let h: ProxyHarness;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'] });
  });
  afterAll(() => h.stop());
  beforeEach(() => h.upstream.reset());

  const asAdmin = () => ({ token: h.tenant.admin.token, orgId: h.tenant.orgId });

  describe('prompts', () => {
    // Each test makes its own prompt (so any one runs alone): versions 1–4, the first from the create.
    const promptWithVersions = async (name: string, added = 3) => {
      const created = await api(h.app, 'POST', '/api/v1/prompts', {
        ...asAdmin(),
        body: { project_id: h.tenant.projectId, name, version: { template: 'Hello {{name}}', model: 'gpt-4o-mini' } },
      });
      expect(created.status).toBe(201);
      const promptId = created.body.data.id as string;
      for (let i = 0; i < added; i++) {
        const body = { template: [{ role: 'system', content: 'be nice' }] };
        expect((await api(h.app, 'POST', `/api/v1/prompts/${promptId}/versions`, { ...asAdmin(), body })).status).toBe(
          201,
        );
      }
      return { promptId, v1: created.body.data.versions[0] as { id: string; version: number } };
    };

    it('creates a prompt with a first version (admin/editor only) and adds immutable numbered versions', async () => {
      const viewer = await api(h.app, 'POST', '/api/v1/prompts', {
        token: h.tenant.viewer.token,
        orgId: h.tenant.orgId,
        body: { project_id: h.tenant.projectId, name: 'greeter' },
      });
      expect(viewer.status).toBe(403);
      const created = await api(h.app, 'POST', '/api/v1/prompts', {
        ...asAdmin(),
        body: {
          project_id: h.tenant.projectId,
          name: 'greeter',
          description: 'says hi',
          version: { template: 'Hello {{name}}', model: 'gpt-4o-mini' },
        },
      });
      expect(created.status).toBe(201);
      const promptId = created.body.data.id;
      const v1 = created.body.data.versions[0];
      expect(v1).toMatchObject({ version: 1, template: 'Hello {{name}}', name: 'greeter' });
      const dup = await api(h.app, 'POST', '/api/v1/prompts', {
        ...asAdmin(),
        body: { project_id: h.tenant.projectId, name: 'greeter' },
      });
      expect(dup.status).toBe(409);
      const bad = await api(h.app, 'POST', '/api/v1/prompts', {
        ...asAdmin(),
        body: { project_id: h.tenant.projectId, name: 'has@at' },
      });
      expect(bad.status).toBe(400);

      const results = await Promise.all(
        [2, 3, 4].map(() =>
          api(h.app, 'POST', `/api/v1/prompts/${promptId}/versions`, {
            token: h.tenant.editor.token,
            orgId: h.tenant.orgId,
            body: { template: [{ role: 'system', content: 'be nice' }] },
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
      expect(results.map((r) => r.body.data.version).sort()).toEqual([2, 3, 4]);
      const got = await api(h.app, 'GET', `/api/v1/prompts/${promptId}`, {
        token: h.tenant.viewer.token,
        orgId: h.tenant.orgId,
      });
      expect(got.body.data).toMatchObject({ name: 'greeter', latest_version: 4 });
      expect(got.body.data.versions.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
    });

    it('reads a version by name@version, name@latest and id', async () => {
      const { promptId, v1 } = await promptWithVersions('reader');
      const q = (ref: string) =>
        api(
          h.app,
          'GET',
          `/api/v1/prompts/resolve?project_id=${h.tenant.projectId}&ref=${encodeURIComponent(ref)}`,
          asAdmin(),
        );
      expect((await q('reader@1')).body.data).toMatchObject({ id: v1.id, version: 1 });
      expect((await q('reader@latest')).body.data).toMatchObject({ version: 4 });
      expect((await q(v1.id)).body.data).toMatchObject({ version: 1 });
      expect((await q('reader@99')).status).toBe(404);
      // Lower-case words are labels (an unknown one is a 404); anything else after @ is malformed.
      expect((await q('reader@v1')).status).toBe(404);
      expect((await q('reader@V 1')).status).toBe(400);
      const byPath = await api(h.app, 'GET', `/api/v1/prompts/${promptId}/versions/latest`, asAdmin());
      expect(byPath.body.data.version).toBe(4);
    });

    it('links proxied requests; @latest is resolved on every call', async () => {
      const { promptId, v1 } = await promptWithVersions('linker');
      const send = (ref: string) =>
        proxyFetch(h, 'openai', '/v1/chat/completions', {
          headers: { 'x-service-prompt-version': ref },
          body: chat(),
        }).then(async (r) => {
          await r.arrayBuffer();
          return r;
        });
      const byName = await send('linker@1');
      const byId = await send(v1.id);
      const latest = await send('linker@latest');
      const v5 = await api(h.app, 'POST', `/api/v1/prompts/${promptId}/versions`, {
        ...asAdmin(),
        body: { template: 'v5' },
      });
      const latestAfter = await send('linker@latest');
      const rowOf = async (r: Response) => (await h.rows(1, { id: r.headers.get('x-service-request-id') }))[0]!;
      expect((await rowOf(byName)).prompt_version_id).toBe(v1.id);
      expect((await rowOf(byId)).prompt_version_id).toBe(v1.id);
      const v4 = (await api(h.app, 'GET', `/api/v1/prompts/${promptId}/versions/4`, asAdmin())).body.data;
      expect((await rowOf(latest)).prompt_version_id).toBe(v4.id);
      expect((await rowOf(latestAfter)).prompt_version_id).toBe(v5.body.data.id);
    });

    it('malformed → 400, unknown → 404, both before calling upstream', async () => {
      // An existing prompt, so `strict@77` is an unknown version of a known prompt.
      await promptWithVersions('strict', 0);
      for (const [ref, status] of [
        ['no-at-sign', 400],
        ['strict@0', 400],
        ['strict@', 400],
        ['@3', 400],
        ['missing@1', 404],
        ['strict@77', 404],
        ['00000000-0000-4000-8000-000000000000', 404],
      ] as const) {
        const res = await proxyFetch(h, 'openai', '/v1/chat/completions', {
          headers: { 'x-service-prompt-version': ref },
          body: chat(),
        });
        expect([ref, res.status]).toEqual([ref, status]);
      }
      expect(h.upstream.requests).toHaveLength(0);
    });
  });

  describe('GET /api/v1/requests', () => {
    beforeAll(async () => {
      await h.app.database.db('requests').del();
      for (const [user, session, status] of [
        ['alice', 's1', 200],
        ['alice', 's2', 200],
        ['bob', 's1', 500],
        ['carol', 's3', 200],
        ['carol', 's3', 200],
      ] as const) {
        if (status !== 200)
          h.upstream.handle((_q, res) => {
            res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"x"}');
          });
        const res = await proxyFetch(h, 'openai', '/v1/chat/completions', {
          headers: { 'x-service-user-id': user, 'x-service-session-id': session },
          body: chat(user),
        });
        await res.arrayBuffer();
        h.upstream.reset();
      }
      await h.rows(5);
    });

    it('lists newest first with filters, for JWT, full and public keys', async () => {
      for (const token of [h.tenant.admin.token, h.tenant.fullKey, h.tenant.publicKey, h.tenant.viewer.token]) {
        const r = await api(h.app, 'GET', '/api/v1/requests', { token, orgId: h.tenant.orgId });
        expect(r.status).toBe(200);
        expect(r.body.data).toHaveLength(5);
        expect(r.body.data[0].request_body).toBeUndefined();
        const times = r.body.data.map((x: { created_at: string }) => Date.parse(x.created_at));
        expect([...times].sort((a, b) => b - a)).toEqual(times);
      }
      const f = async (qs: string) =>
        (await api(h.app, 'GET', `/api/v1/requests?${qs}`, { token: h.tenant.fullKey })).body.data;
      expect(await f('user_id=alice')).toHaveLength(2);
      expect(await f('session_id=s1')).toHaveLength(2);
      expect(await f('status=500')).toHaveLength(1);
      expect(await f('status=2xx')).toHaveLength(4);
      expect(await f('provider=openai&model=gpt-4o-mini')).toHaveLength(5);
      expect(await f('provider=anthropic')).toHaveLength(0);
      expect(await f(`from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toHaveLength(0);
      expect(await f(`to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toHaveLength(5);
      expect((await api(h.app, 'GET', '/api/v1/requests?status=abc', { token: h.tenant.fullKey })).status).toBe(400);
      expect((await api(h.app, 'GET', '/api/v1/requests', {})).status).toBe(401);
    });

    it('paginates with a cursor without gaps or repeats', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: ApiResult<{ id: string }[]> = await api(
          h.app,
          'GET',
          `/api/v1/requests?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          { token: h.tenant.fullKey },
        );
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((r: { id: string }) => r.id));
        cursor = page.body.next_cursor as string | null;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(new Set(seen).size).toBe(5);
      expect((await api(h.app, 'GET', '/api/v1/requests?cursor=garbage', { token: h.tenant.fullKey })).status).toBe(
        400,
      );
    });

    it('reads one request with bodies; other organizations get 404', async () => {
      const list = await api(h.app, 'GET', '/api/v1/requests?limit=1', { token: h.tenant.fullKey });
      const id = list.body.data[0].id;
      const one = await api(h.app, 'GET', `/api/v1/requests/${id}`, { token: h.tenant.publicKey });
      expect(one.status).toBe(200);
      expect(one.body.data).toMatchObject({ id, provider: 'openai' });
      expect(one.body.data.request_body).toContain('gpt-4o-mini');
      expect(
        (await api(h.app, 'GET', `/api/v1/requests/00000000-0000-4000-8000-000000000000`, { token: h.tenant.fullKey }))
          .status,
      ).toBe(404);
    });
  });

  it(
    'emits request.created into the outbox in the same transaction as the row, ' + 'with exactly the spec fields',
    async () => {
      // A subscribed webhook (written directly: this app runs no dispatcher, so the outbox row stays put).
      await h.app.database.db('webhooks').insert({
        org_id: h.tenant.orgId,
        name: 'req',
        url: 'https://example.com/hook',
        events: ['request.created'],
        secret_ciphertext: 'x',
        master_key_id: 'k1',
        secret_hint: 'x',
      });
      const res = await proxyFetch(h, 'openai', '/v1/chat/completions', {
        headers: { 'x-service-trace-id': 'tr-1' },
        body: chat('evented'),
      });
      await res.arrayBuffer();
      const id = res.headers.get('x-service-request-id')!;
      const [row] = await h.rows(1, { id });
      const deadline = Date.now() + 5000;
      type Created = { request: { id: string; cost_usd: number; created_at: string; [k: string]: unknown } };
      let events: { payload: Created }[] = [];
      while (Date.now() < deadline) {
        events = await h.app.database.db('event_outbox').where({ kind: 'request.created' }).select('payload');
        if (events.some((e) => e.payload.request?.id === id)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const ev = events.find((e) => e.payload.request?.id === id)!;
      expect(Object.keys(ev.payload.request).sort()).toEqual(
        [
          'id',
          'provider',
          'model',
          'prompt_tokens',
          'completion_tokens',
          'total_tokens',
          'cost_usd',
          'latency_ms',
          'status_code',
          'trace_id',
          'created_at',
        ].sort(),
      );
      expect(ev.payload.request).toMatchObject({
        id,
        provider: 'openai',
        model: 'gpt-4o-mini',
        prompt_tokens: row!.prompt_tokens,
        completion_tokens: row!.completion_tokens,
        total_tokens: row!.total_tokens,
        latency_ms: row!.latency_ms,
        status_code: 200,
        trace_id: 'tr-1',
      });
      expect(ev.payload.request.cost_usd).toBeCloseTo(Number(row!.cost_usd), 12);
      expect(Date.parse(ev.payload.request.created_at)).toBe(new Date(row!.created_at).getTime());
    },
  );
});
