import type { Browser, Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { DESKTOP, dismissToasts, PHONE, review, settle, sticksOut } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

interface Share {
  resource_type: string;
  resource_id: string;
  revoked_at: string | null;
}
const chat = (content: string) => ({
  id: 'x',
  object: 'chat.completion',
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
});

/**
 * The two shares the dashboard offers beyond traces, sessions and requests, in a real browser
 * against the real service: an experiment comparison shared from the compare view and a saved
 * stats view shared from the settings, each link opened in a fresh page without credentials and
 * rendered readably (the experiments' table; the view's name, filter and totals); the API lists both shares.
 */
describe('sharing a comparison and a stats view in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  const ids: string[] = [];
  let saved = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const post = async (path: string, body: unknown) => (await api(app, 'POST', path, { ...as(), body })).body.data;
  const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, app.url);

  /** A phone card's value under its label (`dt`, matched whole). */
  const field = (card: Locator, label: string) =>
    card
      .locator('dl > div')
      .filter({ has: card.page().locator('dt', { hasText: new RegExp(`^${label.replace(/[()/]/g, '\\$&')}$`) }) })
      .locator('dd');

  /** Opens a share link in a fresh browser context: no token, no session storage. */
  async function openAnonymously(url: string, heading: string) {
    const context = await browser.newContext({ viewport: DESKTOP });
    const anon = await context.newPage();
    anon.on('pageerror', (e) => errors.push(String(e)));
    await anon.goto(local(url));
    await anon.getByRole('heading', { name: heading, level: 1 }).waitFor();
    return { anon, close: () => context.close() };
  }

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    // The baseline's prompt ("Answer:") gets every question right, the candidate's ("Guess:") only q-0.
    upstream.handle(async (req, res) => {
      const text = JSON.stringify(req.json?.messages ?? []);
      const q = /q-(\d+)/.exec(text)?.[1] ?? '';
      sendJson(res, 200, chat(text.includes('Answer:') || q === '0' ? `answer q-${q}` : 'no idea'));
    });
    const dataset = (await post('/api/v1/datasets', { project_id: t.projectId, name: 'questions' })).id;
    const items = [0, 1, 2].map((i) => ({
      id: `i${i}`,
      input: { question: `q-${i}` },
      expected_output: `answer q-${i}`,
    }));
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, { ...as(), body: { items } });
    const exact = {
      project_id: t.projectId,
      name: 'exact',
      type: 'exact_match',
      config: { expected_path: '$.expected' },
    };
    const evaluator = (await post('/api/v1/evaluators', exact)).id;
    for (const [name, template] of [
      ['baseline qa', 'Answer: {{question}}'],
      ['candidate qa', 'Guess: {{question}}'],
    ]) {
      const subject = { kind: 'prompt', template, provider: 'openai', model: 'gpt-4o-mini' };
      const body = { project_id: t.projectId, name, dataset_id: dataset, subject, evaluator_ids: [evaluator] };
      ids.push((await post('/api/v1/experiments', body)).id);
    }
    const done = async () =>
      (await Promise.all(ids.map((id) => get(`/api/v1/experiments/${id}`)))).every((x) => x.status === 'completed');
    await waitUntil(done, 60_000, 'experiments done');
    // A call through the gateway, so the stats view has a number to show.
    const call = await fetch(`${app.url}/proxy/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Answer: q-9' }] }),
    });
    expect(call.status).toBe(200);
    const filter = { name: 'mini spend', view: 'stats', filter: { model: 'gpt-4o-mini' }, visibility: 'project' };
    saved = (await post('/api/v1/saved-filters', { ...filter, project_id: t.projectId })).id;
    const counted = async () =>
      (await get(`/api/v1/stats?project_id=${t.projectId}&saved_filter_id=${saved}`)).totals.requests > 0;
    await waitUntil(counted, 30_000, 'the call counted');
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('shares the comparison from the compare view: the link shows both experiments without signing in', async () => {
    await page.goto(`${app.url}/experiments`);
    await page.getByRole('checkbox', { name: 'baseline qa' }).check(); // picked first: the baseline
    await page.getByRole('checkbox', { name: 'candidate qa' }).check();
    await page.getByRole('table', { name: 'Aggregates' }).waitFor();
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const url = (await page.getByTestId('share-url').textContent())!;
    await dismissToasts(page).catch(() => {});
    expect(await review(page, 'share-comparison')).toEqual([]);

    const { anon, close } = await openAnonymously(url, 'Shared experiment comparison');
    const table = anon.getByRole('table', { name: 'Aggregates' });
    await table.getByText('baseline qa').waitFor();
    await table.getByText('candidate qa').waitFor();
    const rows = table.getByRole('row');
    expect(await rows.count()).toBe(3); // the header and the two experiments
    expect(await rows.nth(1).textContent()).toContain('baseline');
    expect(await rows.nth(2).getByTestId('score-exact').textContent()).toContain('−0.667'); // 1/3 against 3/3
    // The raw JSON is a toggle away.
    await anon.getByRole('button', { name: 'Show the raw JSON' }).click();
    await anon.getByLabel('The shared experiment comparison').getByText('"regressions"', { exact: false }).waitFor();
    expect(await review(anon, 'shared-comparison')).toEqual([]);

    // On a phone: a card per experiment and per item, with the values the API compares, nothing wider than the screen.
    await anon.setViewportSize(PHONE);
    await settle(anon); // measured once the layout has followed the width
    const cards = anon.getByRole('list', { name: 'Aggregates' }).getByRole('listitem');
    await cards.first().waitFor();
    expect(await table.count()).toBe(0);
    expect(await field(cards.nth(0), 'Experiment').textContent()).toBe('baseline qabaseline');
    expect(await field(cards.nth(1), 'Experiment').textContent()).toBe('candidate qa');
    expect(await field(cards.nth(1), 'exact (95 % CI)').textContent()).toContain('−0.667');
    const cmp = await get(`/api/v1/experiments/compare?ids=${ids.join(',')}`);
    const items = anon.getByRole('list', { name: 'Items side by side' }).getByRole('listitem');
    expect(await items.count()).toBe(cmp.items.length);
    const first = cmp.items[0] as { item_id: string; runs: Record<string, { outputs: string[] }> };
    expect(await field(items.first(), 'Item').textContent()).toBe(first.item_id);
    for (const [i, name] of ['baseline qa', 'candidate qa'].entries())
      expect(await field(items.first(), name).locator('p').first().textContent()).toBe(first.runs[ids[i]!]!.outputs[0]);
    const inCards = 'ul[aria-label="Aggregates"] *, ul[aria-label="Items side by side"] *';
    expect(await sticksOut(anon, inCards)).toBe(0);
    await close();
  }, 90_000);

  it('shares a saved stats view from the settings: the link shows its name, its filter and its totals', async () => {
    await page.goto(`${app.url}/settings?tab=filters`);
    await page.getByRole('button', { name: 'Share mini spend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share mini spend' });
    expect(await dialog.getByRole('button', { name: /without/ }).count()).toBe(0); // nothing to redact
    await dialog.getByRole('button', { name: 'Share', exact: true }).click();
    const url = (await dialog.getByTestId('share-url').textContent())!;
    await dismissToasts(page).catch(() => {});
    expect(await review(page, 'share-stats-view')).toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).click();

    const stats = await get(`/api/v1/stats?project_id=${t.projectId}&saved_filter_id=${saved}`);
    const { anon, close } = await openAnonymously(url, 'Shared stats view');
    // The saved filter's name heads the view, and its one condition is listed above the totals.
    await anon.getByRole('heading', { name: 'mini spend', level: 2 }).waitFor();
    const conditions = anon.getByRole('list', { name: 'Filter conditions' }).getByRole('listitem');
    expect(await conditions.allTextContents()).toEqual(['Model gpt-4o-mini']);
    const requests = anon.locator('dl.kpis > div').filter({ has: anon.locator('dt', { hasText: /^Requests$/ }) });
    expect(await requests.locator('dd').textContent()).toBe(String(stats.totals.requests));
    await anon.getByText('Latency p95', { exact: true }).waitFor();
    expect(await review(anon, 'shared-stats-view')).toEqual([]);
    await close();

    const shares = (await get('/api/v1/shares')) as Share[];
    expect(shares).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          resource_type: 'experiment_comparison',
          resource_id: ids.join(','),
          revoked_at: null,
        }),
        expect.objectContaining({ resource_type: 'stats_view', resource_id: saved, revoked_at: null }),
      ]),
    );
    expect(errors).toEqual([]);
  }, 90_000);
});
