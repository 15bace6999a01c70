import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import type { FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { dismissToasts, review } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

/**
 * Prompts in a real browser against the real service: a prompt created with a text template, a
 * second version written as chat messages with a label, the label moved back to version 1, and
 * version 2 opened in the playground (prefilled, its {{variable}} asked for) and run through the
 * proxy (a fake upstream answers): the call is linked to the version. An edit there is saved as
 * version 3. Every write is read back from the API; each view is screenshot at 1440 and 390 in
 * both themes and checked with axe (ui.ts).
 */
describe('prompts in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let promptId = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const prompt = () => get(`/api/v1/prompts/${promptId}`);
  const quiet = () => dismissToasts(page);
  const check = async (name: string) => {
    await quiet();
    await page.evaluate('window.scrollTo(0, 0)');
    expect(await review(page, name)).toEqual([]);
  };

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('creates a prompt with a text template', async () => {
    await page.goto(`${app.url}/prompts`);
    await page.getByText('No prompts yet').waitFor();
    await page.getByRole('button', { name: 'New prompt' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Create prompt' }).click();
    await dialog.getByText('Write the template').waitFor(); // checked before any call
    await dialog.getByLabel('Name').fill('support/greeter');
    await dialog.getByLabel('Template', { exact: true }).fill('Greet {{name}} warmly.');
    await dialog.getByText('Variables: name').waitFor();
    await check('prompt-create');
    await dialog.getByRole('button', { name: 'Create prompt' }).click();
    await page.waitForURL(/\/prompts\/[0-9a-f-]{36}$/);
    promptId = page.url().split('/prompts/')[1]!;
    await page.getByRole('cell', { name: 'v1', exact: true }).waitFor();
    const p = await prompt();
    expect(p).toMatchObject({ name: 'support/greeter', project_id: t.projectId, latest_version: 1 });
    expect(p.versions).toEqual([
      expect.objectContaining({
        version: 1,
        template: 'Greet {{name}} warmly.',
        model: 'gpt-4o-mini',
        variables: ['name'],
      }),
    ]);
  });

  it('adds a version written as chat messages, with a label', async () => {
    await page.getByRole('button', { name: 'New version' }).click();
    const dialog = page.getByRole('dialog');
    // starts from the latest
    expect(await dialog.getByLabel('Template', { exact: true }).inputValue()).toBe('Greet {{name}} warmly.');
    await dialog.getByText('Chat messages').click();
    expect(await dialog.getByLabel('Message 1 content').inputValue()).toBe('Greet {{name}} warmly.');
    await dialog.getByLabel('Message 1 role').selectOption('system');
    await dialog.getByLabel('Message 1 content').fill('You are kind. Greet {{name}}.');
    await dialog.getByRole('button', { name: 'Add message' }).click();
    await dialog.getByLabel('Message 2 content').fill('Hello, I am {{name}} from {{city}}.');
    await dialog.getByText('Variables: name, city').waitFor();
    await dialog.getByLabel('Labels').fill('production');
    await dialog.getByLabel('Labels').press('Enter');
    await dialog.getByLabel('Commit message').fill('Chat form');
    await check('prompt-new-version');
    await dialog.getByRole('button', { name: 'Save version' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'v2', exact: true }).waitFor();
    const v2 = (await prompt()).versions.find((v: { version: number }) => v.version === 2);
    expect(v2).toMatchObject({
      template: [
        { role: 'system', content: 'You are kind. Greet {{name}}.' },
        { role: 'user', content: 'Hello, I am {{name}} from {{city}}.' },
      ],
      labels: ['production'],
      commit_message: 'Chat form',
      variables: ['name', 'city'],
    });
    await page.waitForSelector('.diff .add');
    await check('prompt-versions');
  });

  it('moves a label back to version 1', async () => {
    await page.getByRole('button', { name: 'Edit the labels of version 1' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Labels').fill('production');
    await dialog.getByLabel('Labels').press('Enter');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(
      `[...document.querySelectorAll('table tbody tr')].map((r) => r.textContent).join('|')` +
        `.match(/v2[^|]*—[^|]*\\|v1[^|]*production/)`,
    );
    const versions = (await prompt()).versions as { version: number; labels: string[] }[];
    expect(versions.map((v) => [v.version, v.labels])).toEqual([
      [2, []],
      [1, ['production']],
    ]);
  });

  it('opens version 2 in the playground, runs it linked to the version, and saves an edit as version 3', async () => {
    await page.getByRole('link', { name: 'Open version 2 in the playground' }).click();
    await page.waitForURL(/\/playground\?prompt=[0-9a-f-]{36}&version=2/);
    const state = page.getByTestId('seed-state');
    await state.getByText('Unchanged').waitFor();
    expect(await page.getByLabel('Message 1 role').inputValue()).toBe('system');
    expect(await page.getByLabel('Message 2 content').inputValue()).toBe('Hello, I am {{name}} from {{city}}.');
    expect(await page.getByLabel('Variants').inputValue()).toBe('openai/gpt-4o-mini');
    await page.getByLabel('{{name}}').fill('Ada');
    await page.getByLabel('{{city}}').fill('Paris');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.waitForSelector('[data-testid=variant-0]:has-text("Hello from the fake upstream.")');
    // The upstream got the filled template; the call names version 2.
    const sent = upstream.requests.at(-1)!.json as { messages: { role: string; content: string }[] };
    expect(sent.messages).toEqual([
      { role: 'system', content: 'You are kind. Greet Ada.' },
      { role: 'user', content: 'Hello, I am Ada from Paris.' },
    ]);
    const v2 = (await prompt()).versions.find((v: { version: number }) => v.version === 2);
    let linked: { id: string }[] = [];
    await waitUntil(
      async () => (linked = await get(`/api/v1/requests?prompt_version_id=${v2.id}`)).length === 1,
      15_000,
      'the call linked to version 2',
    );
    await check('playground-from-version');

    await page.getByLabel('Message 2 content').fill('Hi, I am {{name}}.');
    await state.getByText('Edited').waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.waitForURL(new RegExp(`/prompts/${promptId}$`));
    await page.getByRole('cell', { name: 'v3', exact: true }).waitFor();
    const v3 = (await prompt()).versions.find((v: { version: number }) => v.version === 3);
    expect(v3).toMatchObject({
      template: [
        { role: 'system', content: 'You are kind. Greet {{name}}.' },
        { role: 'user', content: 'Hi, I am {{name}}.' },
      ],
      model: 'gpt-4o-mini',
      commit_message: 'From the playground (based on v2)',
    });

    // The call's detail names the version and links to its prompt.
    await page.goto(`${app.url}/requests/${linked[0]!.id}`);
    const link = page.getByRole('link', { name: 'support/greeter v2' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/prompts/${promptId}`);
    expect(errors).toEqual([]);
  });
});
