import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import type { FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { dismissToasts, review } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

/**
 * Datasets in a real browser against the real service: a dataset created and renamed; items
 * added (JSON and text), edited and deleted; a CSV (with a refused row) and a JSON Lines file
 * uploaded; logged requests (made through the proxy, a fake upstream answering) added by a
 * filter; and the dataset read at a past version. Every write is read back from the API; each
 * view is screenshot at 1440 and 390 in both themes and checked with axe (ui.ts).
 */
describe('datasets in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let id = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const items = async (q = '') =>
    ((await get(`/api/v1/datasets/${id}/items${q}`)) as { id: string }[]).map((i) => i.id).sort();
  const rows = () => page.locator('[role=table][aria-label="Dataset items"] [role=row][data-index]');
  const rowIds = async () => (await rows().locator('[role=cell]:first-child').allTextContents()).sort();
  const waitRows = (n: number) =>
    page.waitForFunction(
      `document.querySelectorAll('[role=table][aria-label="Dataset items"] [role=row][data-index]').length === ${n}`,
      undefined,
      { timeout: 15_000 },
    );
  const quiet = () => dismissToasts(page);
  const check = async (name: string) => {
    await quiet();
    await page.evaluate('window.scrollTo(0, 0)');
    expect(await review(page, name)).toEqual([]);
  };
  const call = (tier: string, text: string) =>
    new OpenAI({
      apiKey: t.fullKey,
      baseURL: `${app.url}/proxy/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-service-property-tier': tier },
    }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] });

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    await call('gold', 'What is the capital of Italy?');
    await call('gold', 'What is the capital of Spain?');
    await call('free', 'hello');
    await waitUntil(async () => (await get('/api/v1/requests')).length === 3, 15_000, 'three calls logged');
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('creates a dataset and edits its description', async () => {
    await page.goto(`${app.url}/datasets`);
    await page.getByText('No datasets yet').waitFor();
    await page.getByRole('button', { name: 'New dataset' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('capitals');
    await dialog.getByLabel('Description').fill('Questions about capitals');
    await dialog.getByRole('button', { name: 'Create dataset' }).click();
    await page.waitForURL(/\/datasets\/[0-9a-f-]{36}$/);
    id = page.url().split('/datasets/')[1]!;
    await page.getByText('No items yet').waitFor();
    expect(await get(`/api/v1/datasets/${id}`)).toMatchObject({
      name: 'capitals',
      description: 'Questions about capitals',
      project_id: t.projectId,
      items: 0,
    });

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await dialog.getByLabel('Description').fill('Capitals of Europe, with their expected answers');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Capitals of Europe, with their expected answers').waitFor();
    expect((await get(`/api/v1/datasets/${id}`)).description).toBe('Capitals of Europe, with their expected answers');
    await check('dataset-empty');
  });

  it('adds, edits and deletes items', async () => {
    const dialog = page.getByRole('dialog');
    await page.getByRole('button', { name: 'Add item' }).click();
    await dialog.getByLabel('Input').fill('{"q": "capital of France"');
    await dialog.getByRole('button', { name: 'Add item' }).click();
    await dialog.getByText(/Not valid JSON/).waitFor(); // a typo is caught, not stored as text
    await dialog.getByLabel('Input').fill('{"q": "capital of France"}');
    await dialog.getByLabel('Expected output').fill('Paris');
    await dialog.getByLabel('Id').fill('fr');
    await dialog.getByLabel('Split').fill('test');
    await check('dataset-add-item');
    await dialog.getByRole('button', { name: 'Add item' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitRows(1);
    await page.getByRole('button', { name: 'Add item' }).click();
    await dialog.getByLabel('Input').fill('capital of Germany?');
    await dialog.getByLabel('Expected output').fill('Berlin');
    await dialog.getByLabel('Id').fill('de');
    await dialog.getByRole('button', { name: 'Add item' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitRows(2);
    const stored = await get(`/api/v1/datasets/${id}/items`);
    expect(stored).toEqual([
      expect.objectContaining({ id: 'de', input: 'capital of Germany?', expected_output: 'Berlin', split: null }),
      expect.objectContaining({ id: 'fr', input: { q: 'capital of France' }, expected_output: 'Paris', split: 'test' }),
    ]);

    await page.getByRole('button', { name: 'Edit item fr' }).click();
    expect(await dialog.getByLabel('Input').inputValue()).toBe('{\n  "q": "capital of France"\n}');
    await dialog.getByLabel('Expected output').fill('Paris, France');
    await dialog.getByRole('button', { name: 'Save item' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rows().filter({ hasText: 'Paris, France' }).waitFor();
    expect((await get(`/api/v1/datasets/${id}/items`)).find((i: { id: string }) => i.id === 'fr')).toMatchObject({
      input: { q: 'capital of France' },
      expected_output: 'Paris, France',
      split: 'test',
    });

    await page.getByRole('button', { name: 'Delete item de' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await waitRows(1);
    expect(await items()).toEqual(['fr']);
    expect(await items('?status=archived')).toEqual(['de']);
  });

  it('uploads a CSV (one row refused, by number) and a JSON Lines file', async () => {
    const dialog = page.getByRole('dialog');
    await page.getByRole('button', { name: 'Upload file' }).click();
    const csv =
      'id,input,expected_output\nit,capital of Italy?,Rome\nes,"{""q"": ""capital of Spain""}",Madrid\nbad id,x,y\n';
    await dialog
      .locator('input[type=file]')
      .setInputFiles({ name: 'capitals.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    const summary = dialog.getByTestId('change-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/^2 added · 0 updated · 0 unchanged1 row was refused:Row 3: id: /);
    await check('dataset-upload');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await waitRows(3);
    expect((await get(`/api/v1/datasets/${id}/items`)).find((i: { id: string }) => i.id === 'es')).toMatchObject({
      input: { q: 'capital of Spain' },
      expected_output: 'Madrid',
    });

    await page.getByRole('button', { name: 'Upload file' }).click();
    const jsonl =
      '{"id": "pt", "input": "capital of Portugal?", "expected_output": "Lisbon"}\n' +
      '{"id": "it", "input": "capital of Italy?", "expected_output": "Roma"}\n';
    await dialog
      .locator('input[type=file]')
      .setInputFiles({ name: 'more.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(jsonl) });
    await dialog.getByLabel('Split').fill('train');
    await dialog.getByRole('button', { name: 'Upload' }).click();
    expect(await summary.textContent()).toMatch(/^1 added · 1 updated · 0 unchanged/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await waitRows(4);
    expect(await rowIds()).toEqual(['es', 'fr', 'it', 'pt']);
    const stored = await get(`/api/v1/datasets/${id}/items`);
    expect(stored.find((i: { id: string }) => i.id === 'pt')).toMatchObject({
      split: 'train',
      expected_output: 'Lisbon',
    });
    expect(stored.find((i: { id: string }) => i.id === 'it')).toMatchObject({
      split: 'train',
      expected_output: 'Roma',
    });
  });

  it('adds logged requests by a filter', async () => {
    const dialog = page.getByRole('dialog');
    await page.getByRole('button', { name: 'Add from requests' }).click();
    await dialog.getByLabel('Property').fill('tier gold');
    await dialog.getByRole('button', { name: 'Add items' }).click();
    await dialog.getByText('name:value, e.g. tier:gold').waitFor();
    await dialog.getByLabel('Property').fill('tier:gold');
    await dialog.getByLabel('Split').fill('prod');
    await check('dataset-from-requests');
    await dialog.getByRole('button', { name: 'Add items' }).click();
    await dialog.getByTestId('change-summary').getByText('2 added · 0 updated · 0 unchanged').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await waitRows(6);
    const fromRequests = (await get(`/api/v1/datasets/${id}/items`)).filter(
      (i: { source_request_id: string | null }) => i.source_request_id,
    );
    expect(fromRequests).toHaveLength(2);
    expect(fromRequests.map((i: { split: string }) => i.split)).toEqual(['prod', 'prod']);
    expect(JSON.stringify(fromRequests.map((i: { input: unknown }) => i.input))).toMatch(
      /capital of (Italy|Spain).*capital of (Italy|Spain)/,
    );
    await check('dataset-items');
  });

  it('reads the dataset at a past version', async () => {
    const versions = (await get(`/api/v1/datasets/${id}/versions`)) as { version: string; change: string }[];
    expect(versions.map((v) => v.change)).toEqual([
      'production:requests:newest',
      'upload:jsonl',
      'upload:csv',
      'archive',
      'api',
      'api',
      'api',
    ]);
    const second = versions[versions.length - 2]!.version; // fr and de, before any edit
    await page.getByLabel('Version').selectOption(second);
    await page.waitForURL(/\?version=/);
    await waitRows(2);
    expect(await rowIds()).toEqual(['de', 'fr']);
    expect(await rowIds()).toEqual(await items(`?version=${encodeURIComponent(second)}`));
    // not yet "Paris, France"
    expect(await rows().filter({ hasText: 'France' }).locator('[role=cell]').nth(2).textContent()).toBe('Paris');
    expect(await page.getByRole('button', { name: 'Add item' }).count()).toBe(0); // a past version is read-only
    await page.getByText(/^As of /).waitFor();
    await check('dataset-past-version');
    // The URL opens the same version.
    await page.reload();
    await waitRows(2);
    await page.getByRole('button', { name: 'Back to the latest' }).click();
    await waitRows(6);
    expect(errors).toEqual([]);
  });
});
