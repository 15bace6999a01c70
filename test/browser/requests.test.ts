import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { dismissToasts, review } from './ui';
import { openSignedIn, stopAll } from './stack';

/**
 * The request explorer in a real browser against the real service, with calls made through the
 * proxy by the openai and Anthropic clients (a fake upstream answers): the filter builder narrows
 * the list and writes the URL (a reload opens the same view), a date preset, a column chosen and
 * kept, the live tail bringing in a new call; a request's conversation rendered (Anthropic blocks,
 * a streamed answer put together) with its raw JSON a toggle away; a score added and the request
 * added to a dataset, both read back through the UI and the API. Each view is screenshot at 1440
 * and 390 in both themes and checked with axe (ui.ts).
 */
describe('request explorer in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let datasetId = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const rows = () => page.locator('[role=table][aria-label=Requests] [role=row][data-index]');
  const waitRows = (n: number) =>
    page.waitForFunction(
      `document.querySelectorAll('[role=table][aria-label=Requests] [role=row][data-index]').length === ${n}`,
      undefined,
      { timeout: 15_000 },
    );
  const quiet = () => dismissToasts(page);
  const check = async (name: string) => {
    await quiet();
    await page.evaluate('window.scrollTo(0, 0)'); // a full-page shot from the top, the header in place
    expect(await review(page, name)).toEqual([]);
  };
  const openai = (tier: string) =>
    new OpenAI({
      apiKey: t.fullKey,
      baseURL: `${app.url}/proxy/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-service-property-tier': tier },
    });
  const toolCall = (tier: string) =>
    openai(tier).chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are a weather bot.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      ],
    });

  beforeAll(async () => {
    upstream = await startFakeUpstream(); // answers like each provider, streamed or not
    app = await startTestApp({
      role: 'all',
      env: { PROVIDER_OPENAI_BASE_URL: upstream.url, PROVIDER_ANTHROPIC_BASE_URL: upstream.url },
    });
    t = await seedTenant(app);
    for (const provider of ['openai', 'anthropic'])
      await api(app, 'PUT', '/api/v1/provider-keys', {
        ...as(),
        body: { project_id: t.projectId, provider, api_key: `sk-${provider}-0123456789` },
      });
    for (let i = 0; i < 3; i++)
      await openai('free').chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `hello ${i}` }],
      });
    await toolCall('gold');
    const claude = new Anthropic({
      apiKey: t.fullKey,
      baseURL: `${app.url}/proxy/anthropic`,
      maxRetries: 0,
      defaultHeaders: { 'x-service-property-tier': 'gold' },
    });
    const stream = await claude.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      stream: true,
      system: 'Answer briefly.',
      messages: [
        { role: 'user', content: 'What is in the box?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should look inside.', signature: 'sig' },
            { type: 'tool_use', id: 'toolu_1', name: 'open_box', input: { box: 'blue' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a red ball' }] },
      ],
    });
    for await (const _ of stream) void _;
    await waitUntil(async () => (await get('/api/v1/requests')).length === 5, 15_000, 'five calls logged');
    await api(app, 'POST', '/api/v1/saved-filters', {
      ...as(),
      body: { project_id: t.projectId, view: 'requests', name: 'free tier', filter: { property: 'tier:free' } },
    });
    datasetId = (
      await api(app, 'POST', '/api/v1/datasets', { ...as(), body: { project_id: t.projectId, name: 'golden answers' } })
    ).body.data.id;
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('filters the list with the builder, and the URL carries the view', async () => {
    await page.goto(`${app.url}/requests`);
    await waitRows(5);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1: value').fill('gpt-4o');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/model=gpt-4o(&|$)/);
    await waitRows(1);
    expect(await rows().first().textContent()).toContain('gpt-4o');

    // A custom property row, then the model row removed: the two gold calls of two providers.
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 2: field').selectOption('property');
    await page.getByLabel('Filter 2: property name').fill('tier');
    await page.getByLabel('Filter 2: value').fill('gold');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/property=tier%3Agold/);
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    await page.waitForURL((u) => !u.search.includes('model='));
    await waitRows(2);
    expect((await rows().allTextContents()).join(' ')).toMatch(/claude-sonnet-4-6.*gpt-4o|gpt-4o.*claude-sonnet-4-6/);

    // A bad value is caught in the builder, before any call.
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 2: field').selectOption('status');
    await page.getByLabel('Filter 2: value').fill('2xxx');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForSelector('text=A status like 200 or a class like 4xx');
    expect(page.url()).not.toContain('status=');
    await page.getByLabel('Filter 2: value').fill('2xx');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=2xx/);

    await page.getByLabel('Date range').selectOption('1h');
    await page.waitForURL(/range=1h/);
    await waitRows(2);

    // The link opens the same view: the builder's rows and the list come from the URL.
    const shared = page.url();
    await page.goto('about:blank');
    await page.goto(shared);
    await waitRows(2);
    expect(await page.getByLabel('Filter 1: field').inputValue()).toBe('status');
    expect(await page.getByLabel('Filter 2: property name').inputValue()).toBe('tier');
    expect(await page.getByLabel('Date range').inputValue()).toBe('1h');
    await check('requests-filtered');
  });

  it('keeps the chosen columns across visits', async () => {
    await page.getByRole('button', { name: /^Columns/ }).click();
    await page.getByRole('checkbox', { name: 'Provider' }).check();
    await page.getByRole('checkbox', { name: 'User' }).uncheck();
    await page.keyboard.press('Escape');
    const headers = () => page.locator('[role=table][aria-label=Requests] [role=columnheader]').allTextContents();
    expect(await headers()).toContain('Provider');
    await page.reload();
    await waitRows(2);
    expect(await headers()).toContain('Provider');
    expect(await headers()).not.toContain('User');
    expect((await rows().allTextContents()).join(' ')).toContain('anthropic');
  });

  it('live tail brings in a new call without a reload', async () => {
    await page.mouse.move(0, 0);
    await page.getByLabel('Live tail').check();
    await page.waitForSelector('[data-testid=live-state]:has-text("live")');
    await toolCall('gold');
    await waitRows(3);
    // Pointing at the list pauses the tail.
    await rows().first().hover();
    await page.waitForSelector('[data-testid=live-state]:has-text("paused")');
    await page.mouse.move(0, 0);
    await page.getByLabel('Live tail').uncheck();
  });

  it('renders a request as a conversation, with the raw JSON a toggle away', async () => {
    await rows().filter({ hasText: 'claude-sonnet-4-6' }).click();
    const chat = page.getByRole('list', { name: 'Conversation' });
    await chat.waitFor();
    const turns = chat.getByRole('listitem');
    expect(await turns.evaluateAll((els) => els.map((e) => e.getAttribute('data-role')))).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(await turns.nth(2).textContent()).toMatch(/I should look inside\..*Tool call: open_box/);
    expect(await turns.nth(3).textContent()).toContain('a red ball');
    // the streamed answer, put together
    expect(await turns.nth(4).textContent()).toContain('Hello from the fake upstream.');
    expect(await page.textContent('main')).toMatch(/Anthropic messages · streamed, put together from \d+ events/);
    await check('request-conversation');
    await page.getByText('Raw JSON').click();
    expect(await page.getByLabel('Request body').textContent()).toContain('"tool_use"');
    expect(await page.getByLabel('Response body').textContent()).toContain('content_block_delta');
    await page.getByRole('radiogroup').getByText('Conversation').click();
    await chat.waitFor();
  });

  it('adds a score and adds the request to a dataset, then reads both back', async () => {
    const requestId = page.url().split('/requests/')[1]!;
    await page.getByRole('button', { name: 'Add score' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('helpfulness');
    await dialog.getByLabel('Value').fill('0.9');
    await dialog.getByLabel('Comment').fill('clear and short');
    await check('request-add-score');
    await dialog.getByRole('button', { name: 'Add score' }).click();
    await dialog.waitFor({ state: 'detached' });
    const scores = page.getByRole('region', { name: 'Scores of this request' });
    await scores.getByText('helpfulness').waitFor();
    expect(await scores.textContent()).toMatch(/helpfulness0\.9apiclear and short/);
    const stored = await get(`/api/v1/scores?request_id=${requestId}`);
    expect(stored).toEqual([
      expect.objectContaining({
        name: 'helpfulness',
        value: 0.9,
        data_type: 'numeric',
        source: 'api',
        comment: 'clear and short',
        request_id: requestId,
      }),
    ]);

    await page.getByRole('button', { name: 'Add to dataset' }).click();
    await dialog.getByLabel('Dataset').waitFor();
    expect(await dialog.getByLabel('Dataset').locator('option:checked').textContent()).toBe('golden answers (0 items)');
    expect(await dialog.getByLabel('Item expected output').textContent()).toContain('Hello from the fake upstream.');
    await check('request-add-to-dataset');
    await dialog.getByRole('button', { name: 'Add to dataset' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForSelector('text=Added to golden answers');
    const items = await get(`/api/v1/datasets/${datasetId}/items`);
    expect(items).toEqual([
      expect.objectContaining({
        id: `request:${requestId}`,
        source_request_id: requestId,
        expected_output: 'Hello from the fake upstream.',
      }),
    ]);
    expect(JSON.stringify(items[0].input)).toContain('open_box');
    await check('request-scored');

    // Read back through the UI: the dataset lists the item named after the request.
    await page.goto(`${app.url}/datasets/${datasetId}`);
    await page.getByText(`request:${requestId}`).waitFor();
    expect(errors).toEqual([]);
  });

  it('applies a saved filter from the URL-bound picker', async () => {
    await page.goto(`${app.url}/requests`);
    await waitRows(6);
    await page.getByLabel('Saved filter').selectOption({ label: 'free tier' });
    await page.waitForURL(/saved_filter_id=/);
    await waitRows(3);
    expect(
      new Set(
        await rows()
          .allTextContents()
          .then((r) => r.map((t) => /gpt-4o-mini/.test(t))),
      ),
    ).toEqual(new Set([true]));
  });
});
