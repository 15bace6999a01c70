import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { startFakeUpstream, TEXT_PARTS, type FakeUpstream } from '../../helpers/fake-upstream';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';

/** Polls until the batch writer has logged the row. */
async function waitForRow<T>(fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const r = await fn();
    if (r) return r;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error('row not logged');
}

/** Prompt labels and variables; the playground: 4 variants side by side, streaming, request rows. */
describe('prompt labels and the playground', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let t: SeededTenant;
  let other: SeededTenant;
  let promptId: string;
  const admin = () => ({ token: t.admin.token, orgId: t.orgId });
  const run = (body: Record<string, unknown>, role: 'admin' | 'editor' | 'viewer' = 'editor') =>
    fetch(`${app.url}/api/v1/prompts/playground/run`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t[role].token}`,
        'x-organization-id': t.orgId,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    app = await startTestApp({
      role: 'api',
      env: { PROVIDER_OPENAI_BASE_URL: upstream.url, PROVIDER_ANTHROPIC_BASE_URL: upstream.url },
    });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    for (const provider of ['openai', 'anthropic'])
      await api(app, 'PUT', '/api/v1/provider-keys', {
        ...admin(),
        body: { project_id: t.projectId, provider, api_key: `sk-${provider}-0123456789` },
      });
    const template = [
      { role: 'system', content: 'You greet {{name}} warmly.' },
      { role: 'user', content: 'Say hi to {{name}} in {{lang}}.' },
    ];
    const p = await api(app, 'POST', '/api/v1/prompts', {
      ...admin(),
      body: {
        project_id: t.projectId,
        name: 'greeter',
        version: { template, model: 'gpt-4o-mini', labels: ['production'] },
      },
    });
    promptId = p.body.data.id;
    await api(app, 'POST', `/api/v1/prompts/${promptId}/versions`, {
      ...admin(),
      body: { template, model: 'gpt-4o', parameters: { temperature: 0.2 }, labels: ['production', 'staging'] },
    });
  });
  afterAll(async () => {
    await app?.stop();
    await upstream?.close();
  });

  it('labels move between versions and resolve like versions; variables come from the template', async () => {
    const versions = (await api(app, 'GET', `/api/v1/prompts/${promptId}`, admin())).body.data.versions;
    expect(versions.map((v: { version: number; labels: string[] }) => [v.version, v.labels])).toEqual([
      [2, ['production', 'staging']],
      [1, []],
    ]);
    expect(versions[0].variables).toEqual(['name', 'lang']);
    const put = await api(app, 'PUT', `/api/v1/prompts/${promptId}/versions/1/labels`, {
      ...admin(),
      body: { labels: ['production'] },
    });
    expect(put.body.data).toMatchObject({ version: 1, labels: ['production'] });
    const resolve = async (ref: string) =>
      (
        await api(
          app,
          'GET',
          `/api/v1/prompts/resolve?ref=${encodeURIComponent(ref)}&project_id=${t.projectId}`,
          admin(),
        )
      ).body.data?.version;
    expect([
      await resolve('greeter@production'),
      await resolve('greeter@staging'),
      await resolve('greeter@latest'),
    ]).toEqual([1, 2, 2]);
    expect(
      (await api(app, 'GET', `/api/v1/prompts/resolve?ref=greeter@canary&project_id=${t.projectId}`, admin())).status,
    ).toBe(404);
    expect(
      (
        await api(app, 'PUT', `/api/v1/prompts/${promptId}/versions/1/labels`, {
          ...admin(),
          body: { labels: ['latest'] },
        })
      ).status,
    ).toBe(400);
    expect(await app.database.db('audit_logs').where({ action: 'prompt_version.labels_set' })).toHaveLength(1);
    // The proxy resolves a label like a version.
    const proxied = await fetch(`${app.url}/proxy/openai/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.fullKey}`,
        'content-type': 'application/json',
        'x-service-prompt-version': 'greeter@production',
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(proxied.status).toBe(200);
    const v1 = (await api(app, 'GET', `/api/v1/prompts/${promptId}/versions/1`, admin())).body.data.id;
    const logged = await waitForRow(() => app.database.db('requests').where({ prompt_version_id: v1 }).first());
    expect(logged.model).toBe('gpt-4o-mini');
  });

  it('runs 4 variants side by side, each a request row linked to its prompt version', async () => {
    upstream.reset();
    const r = await run({
      variables: { name: 'Ada', lang: 'French' },
      variants: [
        { prompt: 'greeter@production', provider: 'openai' },
        { prompt: 'greeter@staging', provider: 'anthropic', model: 'claude-3-5-haiku-latest' },
        { template: 'Hello {{name}}', provider: 'openai', model: 'gpt-4o-mini', parameters: { max_tokens: 5 } },
        { prompt: 'greeter@latest', provider: 'openai', parameters: { temperature: 1 } },
      ],
    });
    expect(r.status).toBe(200);
    type Variant = Record<string, unknown> & { request_id: string };
    const { variants } = ((await r.json()) as { data: { variants: Variant[] } }).data;
    expect(variants.map((v) => [v.index, v.model, v.output, v.error])).toEqual([
      [0, 'gpt-4o-mini', TEXT_PARTS.join(''), null],
      [1, 'claude-3-5-haiku-latest', TEXT_PARTS.join(''), null],
      [2, 'gpt-4o-mini', TEXT_PARTS.join(''), null],
      [3, 'gpt-4o', TEXT_PARTS.join(''), null],
    ]);
    expect(variants[0].usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(variants[0].cost_usd).toBeGreaterThan(0);
    const sent = upstream.requests.map((q) => q.json!);
    expect(sent.find((b) => b.model === 'claude-3-5-haiku-latest')).toMatchObject({
      system: 'You greet Ada warmly.',
      messages: [{ role: 'user', content: 'Say hi to Ada in French.' }],
    });
    expect(sent.find((b) => b.model === 'gpt-4o')).toMatchObject({ temperature: 1 });
    const rows = await app.database.db('requests').whereIn(
      'id',
      variants.map((v) => v.request_id),
    );
    expect(rows).toHaveLength(4);
    const v1 = (await api(app, 'GET', `/api/v1/prompts/${promptId}/versions/1`, admin())).body.data.id;
    expect(rows.find((x) => x.id === variants[0].request_id)).toMatchObject({
      prompt_version_id: v1,
      properties: { playground: 'true' },
    });
    expect(rows.find((x) => x.id === variants[2].request_id)!.prompt_version_id).toBeNull();
  });

  it('streams: delta events per variant, a result each, then done', async () => {
    const r = await run({
      stream: true,
      variables: { name: 'Ada', lang: 'English' },
      variants: [
        { prompt: 'greeter@1', provider: 'openai' },
        { prompt: 'greeter@2', provider: 'anthropic' },
      ],
    });
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const events = (await r.text())
      .trim()
      .split('\n\n')
      .map((block) => {
        const [ev, data] = block.split('\n');
        return { event: ev!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
      });
    for (const variant of [0, 1]) {
      expect(
        events
          .filter((e) => e.event === 'delta' && e.data.variant === variant)
          .map((e) => e.data.text)
          .join(''),
      ).toBe(TEXT_PARTS.join(''));
      expect(events.find((e) => e.event === 'result' && e.data.index === variant)!.data).toMatchObject({
        output: TEXT_PARTS.join(''),
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      });
    }
    expect(events.at(-1)).toEqual({ event: 'done', data: {} });
  });

  it(
    'refuses a missing variable, a variant without a ' + 'model, more than 4 variants, a provider without a key',
    async () => {
      const code = async (body: Record<string, unknown>) => ((await (await run(body)).json()) as { code: string }).code;
      expect(await code({ variables: { name: 'x' }, variants: [{ prompt: 'greeter@1', provider: 'openai' }] })).toBe(
        'missing_variable',
      );
      expect(await code({ variants: [{ template: 'hi', provider: 'openai' }] })).toBe('model_required');
      expect(
        await code({ variants: Array.from({ length: 5 }, () => ({ template: 'hi', provider: 'openai', model: 'm' })) }),
      ).toBe('validation_error');
      expect(await code({ variants: [{ template: 'hi', provider: 'groq', model: 'llama' }] })).toBe(
        'provider_key_missing',
      );
      expect(await code({ variants: [{ prompt: 'nope@1', provider: 'openai' }] })).toBe('prompt_version_not_found');
    },
  );

  describe('role matrix', () => {
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        {
          name: 'POST /prompts/playground/run',
          method: 'POST',
          path: () => '/api/v1/prompts/playground/run',
          write: true,
          body: { variants: [{ template: 'hi', provider: 'openai', model: 'gpt-4o-mini' }] },
        },
        {
          name: 'PUT /prompts/:id/versions/:version/labels',
          method: 'PUT',
          path: () => `/api/v1/prompts/${promptId}/versions/2/labels`,
          write: true,
          body: { labels: ['staging'] },
        },
      ],
    );
  });
});
