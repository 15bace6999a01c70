import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { dismissToasts, review } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

interface Campaign {
  id: string;
  name: string;
  instructions: string | null;
  status: string;
  items: number;
  reviewers_per_item: number;
  score_config_ids: string[];
  progress: { slots: number; done: number };
}
const chat = (content: string) => ({
  id: 'x',
  object: 'chat.completion',
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
});

/**
 * Human-eval campaigns made from the Annotation page, in a real browser against the real service:
 * a campaign over the latest calls (made through the proxy with the OpenAI SDK) created from the
 * form, items added to it from pasted request and trace ids, one item reviewed from its row with
 * the keyboard, and the campaign closed. Each write is read back from the API.
 */
describe('human-eval campaigns in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let requests: string[] = [];
  let quality = '';
  let stars = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const campaigns = async () => (await get('/api/v1/human-evals')) as Campaign[];
  const check = async (name: string) => {
    await dismissToasts(page);
    await page.evaluate('window.scrollTo(0, 0)');
    expect(await review(page, name)).toEqual([]);
  };
  const call = (content: string) =>
    new OpenAI({ apiKey: t.fullKey, baseURL: `${app.url}/proxy/openai/v1`, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content }],
    });

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    upstream.handle(async (req, res) => {
      const q = JSON.stringify(req.json?.messages ?? []);
      sendJson(res, 200, chat(`answer to ${q.length}`));
    });
    for (const q of ['How do I reset my password?', 'Where is my invoice?', 'Can I change my plan?']) await call(q);
    const trace = { id: 'tr-support', name: 'support agent', start_time: new Date().toISOString() };
    await api(app, 'POST', '/ingest/traces', { token: t.fullKey, body: trace });
    const count = async (path: string) => ((await get(path)) as unknown[]).length;
    const stored = async () => (await count('/api/v1/requests')) === 3 && (await count('/api/v1/traces')) === 1;
    await waitUntil(stored, 15_000, 'calls and trace stored');
    requests = ((await get('/api/v1/requests')) as { id: string }[]).map((r) => r.id);
    const categories = [
      { label: 'good', value: 1 },
      { label: 'bad', value: 0 },
    ];
    const config = { project_id: t.projectId, name: 'quality', data_type: 'categorical', categories };
    quality = (await api(app, 'POST', '/api/v1/score-configs', { ...as(), body: config })).body.data.id;
    const rating = { project_id: t.projectId, name: 'stars', data_type: 'numeric', min: 1, max: 5 };
    stars = (await api(app, 'POST', '/api/v1/score-configs', { ...as(), body: rating })).body.data.id;
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app), 60_000);

  const row = () => page.getByTestId('campaign-support answers');

  it('creates a campaign over the latest calls from the form, and lists it with its progress', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Annotation' }).click();
    await page.getByText('No campaigns yet').waitFor();
    await page.getByRole('button', { name: 'New campaign' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Create campaign' }).click();
    await dialog.getByText('Name the campaign').waitFor(); // nothing is sent half-filled
    await dialog.getByText('Choose what reviewers score').waitFor();
    await dialog.getByLabel('Name').fill('support answers');
    await dialog.getByLabel('Instructions').fill('Is the answer correct and polite?');
    await dialog.getByLabel('quality (categorical)').check();
    await dialog.getByLabel('stars (numeric)').check();
    await dialog.getByLabel('Reviewers per item').fill('2');
    await dialog.getByLabel('At most').fill('2');
    await dialog.getByText('up to 2 calls of the last 24 hours').waitFor();
    await check('annotation-new-campaign');
    await dialog.getByRole('button', { name: 'Create campaign' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row().getByText('0 / 4 answers').waitFor();
    const [c] = await campaigns();
    expect(c).toMatchObject({
      name: 'support answers',
      instructions: 'Is the answer correct and polite?',
      status: 'open',
      items: 2,
      reviewers_per_item: 2,
      score_config_ids: [quality, stars],
      progress: { slots: 4, done: 0 },
    });
    expect(await row().getByTestId('campaign-items').textContent()).toBe('2 items');
  }, 60_000);

  it('adds pasted request ids to it; ones it has are kept', async () => {
    await page.getByRole('button', { name: 'Add items to support answers' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Paste ids').click();
    await dialog.getByRole('textbox', { name: 'Ids' }).fill(`${requests.join('\n')}\nnot-an-id`);
    await dialog.getByRole('button', { name: 'Add items' }).click();
    await dialog.getByText('Not a request id: not-an-id').waitFor();
    await dialog.getByRole('textbox', { name: 'Ids' }).fill(requests.join('\n'));
    await dialog.getByText('3 pasted request ids').waitFor();
    await dialog.getByRole('button', { name: 'Add items' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('1 item added to support answers').waitFor(); // the latest two were there already
    await row().getByText('0 / 6 answers').waitFor();
    const [c] = await campaigns();
    expect(c).toMatchObject({ items: 3, progress: { slots: 6, done: 0 } });
  }, 60_000);

  it('adds a trace from its page, and says so when a call is in the campaign already', async () => {
    await page.goto(`${app.url}/traces/tr-support`);
    await page.getByRole('button', { name: 'Add to review' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add this trace to a review campaign' });
    await dialog.getByLabel('Campaign').selectOption({ label: 'support answers (3 items)' });
    await dialog.getByText('for 2 reviewers').waitFor();
    await check('annotation-add-trace');
    await dialog.getByRole('button', { name: 'Add to campaign' }).click();
    await page.getByText('Added to support answers').waitFor();
    const [c] = await campaigns();
    expect(c).toMatchObject({ items: 4, progress: { slots: 8, done: 0 } });
    await page.goto(`${app.url}/requests/${requests[0]}`);
    await page.getByRole('button', { name: 'Add to review' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Add to campaign' }).click();
    await page.getByText('support answers already has this call').waitFor();
    expect((await campaigns())[0]).toMatchObject({ items: 4 });
    await page.goto(`${app.url}/annotation`);
  }, 60_000);

  it('reviews an item from its row with the keyboard, then closes the campaign', async () => {
    await page.getByRole('button', { name: 'Review support answers' }).click();
    await page.getByText('Is the answer correct and polite?').last().waitFor();
    // Two configs: each number answers one, in turn; the item is sent with both.
    await page.locator('.review').focus();
    await page.getByTestId('current-config').getByText('to score “quality” (1 of 2)').waitFor();
    await page.keyboard.press('2');
    await page.keyboard.press('Backspace'); // taken back
    await page.keyboard.press('1');
    await page.getByText('Given: quality good').waitFor();
    await page.keyboard.press('9');
    await page.getByText('9 is not a value of “stars”').waitFor(); // out of the config's 1–5
    await check('annotation-campaigns');
    await page.locator('.review').focus();
    await page.keyboard.press('4');
    await page.getByText('1 reviewed in this session').waitFor();
    await row().getByText('1 / 8 answers').waitFor();
    const scores = (await get('/api/v1/scores?source=annotation')) as { name: string; value: number }[];
    expect(scores).toHaveLength(2);
    expect(scores).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'quality', string_value: 'good' }),
        expect.objectContaining({ name: 'stars', value: 4 }),
      ]),
    );
    // The editor answers the same item through the API: two ratings to agree on, read in the Agreement drawer.
    const { id } = (await campaigns())[0]!;
    const editor = { token: t.editor.token, orgId: t.orgId };
    const item = (await api(app, 'GET', `/api/v1/annotation/queue?human_eval_id=${id}`, editor)).body.data;
    const given = [
      { config_id: quality, string_value: 'good' },
      { config_id: stars, value: 5 },
    ];
    const answer = { human_eval_id: id, target_key: item.target_key, scores: given };
    expect((await api(app, 'POST', '/api/v1/annotation/queue', { ...editor, body: answer })).status).toBe(200);
    await page.getByRole('button', { name: 'Agreement in support answers' }).click();
    const drawer = page.getByRole('dialog', { name: 'Agreement in support answers' });
    const table = drawer.getByRole('table', { name: 'Agreement per score config' });
    type Agreement = { name: string; ratings: number; items_rated: number };
    const agreement = (await get(`/api/v1/human-evals/${id}/agreement`)).configs as Agreement[];
    expect(agreement.find((a) => a.name === 'quality')).toMatchObject({ items_rated: 1, ratings: 2 });
    const qualityRow = table.getByRole('row').filter({ hasText: 'quality (categorical)' });
    expect(await qualityRow.getByRole('cell').nth(1).textContent()).toBe('1');
    expect(await qualityRow.getByRole('cell').nth(2).textContent()).toBe('2');
    await table.getByText('stars (numeric)').waitFor();
    expect(await review(page, 'annotation-agreement')).toEqual([]);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Close support answers' }).click();
    await row().getByText('closed').waitFor();
    expect((await campaigns())[0]).toMatchObject({ status: 'closed', progress: { done: 2 } });
    // A viewer sees the campaigns and their progress, with no control that writes.
    await page.goto(`${app.url}/#dev_token=${t.viewer.token}`);
    await page.goto(`${app.url}/annotation`);
    await row().getByText('2 / 8 answers').waitFor();
    for (const name of ['New campaign', 'Add items to support answers', 'Reopen support answers']) {
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    }
    expect(errors).toEqual([]);
  }, 90_000);
});
