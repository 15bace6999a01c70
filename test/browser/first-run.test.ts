import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { dismissToasts, review } from './ui';
import { openSignedIn, stopAll } from './stack';

/**
 * The first run, in a real browser against the real service: an empty project's overview shows
 * a snippet for the OpenAI SDK, the Anthropic SDK, OTLP and the TypeScript SDK with the gateway's
 * address, and waits; a first call made with the openai SDK from the snippet's address (a fake
 * upstream answering) appears on the waiting page without a reload, and links to its detail.
 */
describe('first run in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  const errors: string[] = [];
  const check = async (name: string) => {
    await dismissToasts(page);
    expect(await review(page, name)).toEqual([]);
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    app = await startTestApp({ role: 'all', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    t = await seedTenant(app);
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-openai-0123456789' },
    });
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('shows a snippet for each way in, with the gateway’s address and a placeholder key', async () => {
    await page.goto(`${app.url}/`);
    await page.getByText('Waiting for your first call').waitFor();
    const expected: [string, string, string][] = [
      ['OpenAI', 'openai', `baseURL: '${app.url}/proxy/openai/v1'`],
      ['Anthropic', 'anthropic', `baseURL: '${app.url}/proxy/anthropic'`],
      ['OTLP', 'otlp', `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="${app.url}/v1/traces"`],
      ['TypeScript SDK', 'sdk', `baseUrl: '${app.url}'`],
    ];
    for (const [tab, id, line] of expected) {
      await page.getByRole('tab', { name: tab }).click();
      const code = await page.getByTestId(`snippet-${id}`).textContent();
      expect(code).toContain(line);
      expect(code).toContain('sl_live_YOUR_PROJECT_KEY');
    }
    await page.getByRole('tab', { name: 'OpenAI' }).click();
    await check('overview-first-run');
  });

  it('sees the first call arrive live, made with the openai SDK at the snippet’s address', async () => {
    const snippet = (await page.getByTestId('snippet-openai').textContent())!;
    const baseURL = /baseURL: '([^']+)'/.exec(snippet)![1]!;
    const reply = await new OpenAI({ apiKey: t.fullKey, baseURL, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello from my first call' }],
    });
    expect(reply.choices[0]!.message.content).toBeTruthy();
    const arrived = page.getByRole('status').filter({ hasText: 'Your first call arrived' });
    await arrived.waitFor({ timeout: 15_000 }); // polled: no reload
    expect(await arrived.textContent()).toContain('gpt-4o-mini via openai');
    await check('overview-first-call');
    const [logged] = (await api(app, 'GET', '/api/v1/requests', { token: t.admin.token, orgId: t.orgId })).body
      .data as { id: string }[];
    await arrived.getByRole('link', { name: 'Open the call' }).click();
    await page.waitForURL(`**/requests/${logged!.id}`);
    await page.waitForSelector('[role=list][aria-label=Conversation]');
    // Back on the overview, the call is counted: the guide gives way to the dashboard.
    await page.goto(`${app.url}/`);
    await page.getByText('Error rate').waitFor();
    expect(await page.getByText('Waiting for your first call').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
