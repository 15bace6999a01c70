import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { dismissToasts, review } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

/**
 * The evaluator form's preview, in a real browser against the real service: a `contains`
 * evaluator filled in the form is run on a request made through the proxy (picked from the recent
 * ones), and the value shown is the one the API answers for the same body; nothing is saved.
 */
describe('evaluator preview in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let requestId = '';
  const errors: string[] = [];
  const as = () => ({ token: t.admin.token, orgId: t.orgId });

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    upstream.handle(async (_req, res) =>
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Paris, of course.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      }),
    );
    await new OpenAI({
      apiKey: t.fullKey,
      baseURL: `${app.url}/proxy/openai/v1`,
      maxRetries: 0,
    }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    });
    await waitUntil(
      async () => (await api(app, 'GET', '/api/v1/requests', as())).body.data.length === 1,
      15_000,
      'call stored',
    );
    requestId = (await api(app, 'GET', '/api/v1/requests', as())).body.data[0].id as string;
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app), 60_000);

  it('previews a contains evaluator on a recent request: the value the API answers', async () => {
    await page.goto(`${app.url}/evaluators`);
    await page.getByRole('button', { name: 'New evaluator' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('mentions-paris');
    await dialog.getByLabel('Type', { exact: true }).selectOption('contains');
    await dialog.getByLabel('Text to find').fill('PARIS');
    await dialog.getByLabel('Recent request', { exact: true }).click();
    await page.getByRole('option', { name: /gpt-4o-mini · .* · What is the capital of France\?/ }).click();
    expect(await dialog.getByLabel('…or request id').inputValue()).toBe(requestId);
    await dialog.getByRole('button', { name: 'Preview', exact: true }).click();
    const result = dialog.getByTestId('preview-result');
    await result.waitFor();

    const body = {
      project_id: t.projectId,
      type: 'contains',
      description: null,
      config: { value: 'PARIS', case_sensitive: false, field: 'output' },
      target: { request_id: requestId },
    };
    const answer = (await api(app, 'POST', '/api/v1/evaluators/preview', { ...as(), body })).body.data;
    expect(answer).toMatchObject({ value: 1, string_value: 'true' });
    expect(await result.getByText(answer.string_value, { exact: true }).count()).toBe(1);
    await result.getByText('Output: Paris, of course.').waitFor();
    await dismissToasts(page);
    expect(await review(page, 'evaluator-preview')).toEqual([]);

    // A definition that cannot succeed on it: the error, where the result was.
    await dialog.getByLabel('Type', { exact: true }).selectOption('exact_match');
    await dialog.getByLabel('…or expected from (JSONPath)').fill('$.metadata.gold');
    await dialog.getByRole('button', { name: 'Preview', exact: true }).click();
    await dialog.getByText(/nothing at \$\.metadata\.gold/).waitFor();
    expect(await result.count()).toBe(0);
    await page.screenshot({ path: '.data/screenshots/evaluator-preview-error-1440.png', fullPage: true });

    // Nothing was saved: no evaluator, no score.
    expect((await api(app, 'GET', '/api/v1/evaluators', as())).body.data).toEqual([]);
    expect((await api(app, 'GET', `/api/v1/scores?request_id=${requestId}`, as())).body.data).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
