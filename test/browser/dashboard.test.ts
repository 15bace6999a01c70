import { mkdir } from 'node:fs/promises';
import OpenAI from 'openai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { foldAll } from '../../src/analytics/fold';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { findChromium } from '../helpers/browser-path';
import {
  openaiCompletion,
  openaiStreamEvents,
  sendJson,
  sendSse,
  startFakeUpstream,
  type FakeUpstream,
} from '../helpers/fake-upstream';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../helpers/https-receiver';
import { waitUntil } from '../integration/webhooks/fixtures';
import { areaTests, type Dashboard } from './dashboard-areas';
import { DESKTOP, dismissToasts, review, SHOTS } from './ui';

/**
 * The dashboard in a real headless browser (Debian chromium through playwright-core) against the
 * real service: sign in, create a project and a key, proxy calls with the openai client, see them
 * on the overview and in the request log, open a trace tree, create a webhook and see its delivery,
 * run the playground, review an annotation item, switch organizations. Every page is screenshot
 * at 1440×900 and 390×844 in both themes into .data/screenshots and checked with axe in each
 * (no serious or critical violation).
 */
describe('dashboard in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  const errors: string[] = [];

  const open = async (p: string) => {
    await page.goto(`${app.url}${p}`);
    await page.waitForSelector('main h1');
  };
  // Toasts are closed first: one over the page would hide what the screenshot is for (the webhook's name).
  const check = async (name: string, on: Page = page) => {
    await dismissToasts(on);
    expect(await review(on, name)).toEqual([]);
  };
  const webProjectId = async () => {
    const h = { token: t.admin.token, orgId: t.orgId };
    return (await api<{ id: string; name: string }[]>(app, 'GET', '/api/v1/projects', h)).body.data.find(
      (p) => p.name === 'web-project',
    )!.id;
  };

  // The tests of dashboard-areas.ts read the stack through these getters once it is up.
  const dash: Dashboard = {
    get app() {
      return app;
    },
    get browser() {
      return browser;
    },
    get page() {
      return page;
    },
    get t() {
      return t;
    },
    ...{ errors, open, check, webProjectId },
  };

  beforeAll(async () => {
    const exe = findChromium();
    if (!exe) throw new Error('chromium missing: run `npm run browser:install`');
    upstream = await startFakeUpstream();
    upstream.handle((req, res) => {
      const body = req.json as { model?: string; stream?: boolean } | undefined;
      const model = String(body?.model ?? 'gpt-4o-mini');
      return body?.stream
        ? sendSse(res, openaiStreamEvents(model, true), { delayMs: 20, done: true })
        : sendJson(res, 200, openaiCompletion(model, 'Hello from the fake model'));
    });
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificates();
    app = await startTestApp({
      role: 'all',
      env: {
        PROVIDER_OPENAI_BASE_URL: upstream.url,
        WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
        WEBHOOK_CA_FILE: caFile,
        TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
      },
    });
    t = await seedTenant(app);
    await mkdir(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: DESKTOP });
    page.on('pageerror', (e) => errors.push(String(e)));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await upstream?.close();
    await app?.stop();
  });

  it('signs in with a token link and lands on an empty overview', async () => {
    await page.goto(`${app.url}/`);
    await page.waitForSelector('textarea[name=token]');
    await check('sign-in');
    await page.goto(`${app.url}/#dev_token=${t.admin.token}`);
    await page.waitForSelector('main h1');
    expect(await page.textContent('main h1')).toBe('Overview');
    await page.waitForSelector('text=Send your first call'); // the first-run guide
    expect(page.url()).not.toContain('dev_token'); // the token leaves the address bar
    await check('overview-empty');
  });

  let key = '';
  it('creates a project and an API key in Settings (the key shown once)', async () => {
    await open('/settings');
    await page.fill('input[name=name]', 'web-project');
    await page.click('text=Create project');
    await page.waitForSelector('td:has-text("web-project")');
    await page.selectOption('select[name=project_id]', { label: 'web-project' });
    await page.click('text=Create key');
    key = (await (await page.waitForSelector('[data-testid=new-key]')).textContent())!;
    expect(key).toMatch(/^sl_live_/);
    await check('settings');
  });

  it('shows proxied calls on the overview and in the request log, and a request in detail', async () => {
    const projectId = await webProjectId();
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: projectId, provider: 'openai', api_key: 'sk-web-0123456789' },
    });
    const client = new OpenAI({ apiKey: key, baseURL: `${app.url}/proxy/openai/v1` });
    for (let i = 0; i < 5; i++)
      await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `hello ${i}` }],
      });
    await waitUntil(
      async () =>
        (await api(app, 'GET', '/api/v1/requests', { token: t.admin.token, orgId: t.orgId })).body.data.length === 5,
      10_000,
      'requests logged',
    );
    await foldAll(app.database.db);
    await open('/?range=24h');
    await page.waitForSelector('.kpis');
    expect(await page.textContent('.kpis')).toContain('5');
    expect(await page.textContent('.kpis')).toMatch(/Cost\$0\.0000\d/); // a small cost keeps its digits, never $0.00
    expect(await page.locator('.chart').count()).toBe(4);
    await check('overview');
    await open('/requests');
    await page.waitForSelector('[role=table] [role=row][data-index]');
    expect(await page.locator('[role=table] [role=row][data-index]').count()).toBe(5);
    await check('requests');
    await page.locator('[role=row][data-index="0"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role=list][aria-label=Conversation]'); // the bodies read as a conversation
    expect(await page.textContent('main')).toContain('gpt-4o-mini');
    await check('request-detail');
  });

  it('opens a trace as a tree and a waterfall', async () => {
    const now = Date.now();
    await api(app, 'POST', '/ingest/traces', {
      token: t.fullKey,
      body: { id: 'tr-web', name: 'agent run', start_time: new Date(now).toISOString() },
    });
    await api(app, 'POST', '/ingest/spans', {
      token: t.fullKey,
      body: {
        id: 'sp-root',
        trace_id: 'tr-web',
        name: 'plan',
        start_time: new Date(now).toISOString(),
        end_time: new Date(now + 900).toISOString(),
        input: { goal: 'answer' },
      },
    });
    await api(app, 'POST', '/ingest/spans', {
      token: t.fullKey,
      body: {
        id: 'sp-llm',
        trace_id: 'tr-web',
        parent_span_id: 'sp-root',
        name: 'llm call',
        span_type: 'llm',
        start_time: new Date(now + 100).toISOString(),
        end_time: new Date(now + 600).toISOString(),
        output: { text: 'done' },
      },
    });
    await waitUntil(
      async () =>
        (await api(app, 'GET', '/api/v1/traces/tr-web', { token: t.admin.token, orgId: t.orgId })).body.data?.spans
          ?.length === 2,
      10_000,
      'spans stored',
    );
    await open('/traces');
    await page.click('[role=row] >> text=agent run');
    await page.waitForSelector('[role=treeitem]');
    expect(await page.locator('[role=treeitem]').count()).toBe(2);
    expect(await page.getAttribute('[role=treeitem] >> nth=1', 'aria-level')).toBe('2');
    await page.locator('[role=treeitem] >> nth=0').focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('.span h2:has-text("llm call")');
    expect(await page.textContent('.span')).toContain('No input recorded'); // the span has no input: never `null`
    await check('trace');
  });

  it('creates a webhook (secret shown once), sends a test and shows the delivery', async () => {
    await open('/webhooks');
    await page.fill('input[name=name]', 'ops');
    await page.fill('input[name=url]', receiver.url);
    await page.click('button:has-text("Create")');
    expect(await (await page.waitForSelector('[data-testid=secret]')).textContent()).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    await page.click('text=Send test');
    await receiver.waitFor(1, 20_000);
    await page.click('text=Deliveries');
    // A test is sent directly, not by a workflow: no Temporal link (webhook-deliveries.test.ts checks the links of real
    // ones).
    await page.waitForSelector('text=none: sent directly');
    await page.click('button:has-text("Pause")');
    await page.waitForSelector('text=paused');
    await check('webhooks');
  });

  it('runs the playground with streamed output', async () => {
    await open('/playground');
    await page.waitForSelector('select[name=project_id] option:has-text("web-project")', { state: 'attached' });
    await page.selectOption('select[name=project_id]', { label: 'web-project' });
    await page.click('button:has-text("Run")');
    // the streamed deltas, joined
    await page.waitForSelector('[data-testid=variant-0]:has-text("Hello from the fake upstream.")');
    await check('playground');
  });

  it('reviews an annotation item with the keyboard', async () => {
    const h = { token: t.admin.token, orgId: t.orgId };
    const project = await webProjectId();
    const cfg = (
      await api(app, 'POST', '/api/v1/score-configs', {
        ...h,
        body: { project_id: project, name: 'quality', data_type: 'numeric', min: 0, max: 5 },
      })
    ).body.data.id;
    const reqId = (await api(app, 'GET', `/api/v1/requests?project_id=${project}`, h)).body.data[0].id;
    await api(app, 'POST', '/api/v1/human-evals', {
      ...h,
      body: {
        project_id: project,
        name: 'web review',
        score_config_ids: [cfg],
        targets: { items: [{ request_id: reqId }] },
      },
    });
    await open('/annotation');
    await page.getByLabel('Campaign', { exact: true }).selectOption({ label: 'web review' });
    await page.waitForSelector('.review');
    await page.focus('.review');
    await page.keyboard.press('4');
    await page.waitForSelector('text=Nothing left for you');
    const scores = (await api(app, 'GET', `/api/v1/scores?request_id=${reqId}`, h)).body.data;
    expect(scores).toEqual([expect.objectContaining({ name: 'quality', value: 4 })]);
    await check('annotation');
  });

  areaTests(dash);
});
