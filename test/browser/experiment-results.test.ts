import type { Browser, Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { DESKTOP, dismissToasts, PHONE, review, settle, SHOTS, sticksOut } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

interface ExportRecord {
  resource: string;
  format: string;
  filter: Record<string, unknown>;
  status: string;
  rows_written: number;
}
const chat = (content: string) => ({
  id: 'x',
  object: 'chat.completion',
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
});

interface Run {
  item_id: string;
  repetition: number;
  status: string;
  output: unknown;
  error: string | null;
  scores: Record<string, number | null>;
  latency_ms: number | null;
  cost_usd: number | null;
}

/**
 * An experiment's results page, in a real browser against the real service (API and worker): an
 * experiment over four questions (the fake model answers two right, one wrong, and refuses one)
 * opened from the list, its runs filtered by status from the URL, one run opened, and the runs
 * exported from the page as JSON Lines and (only the failed one) CSV: each file holds exactly the
 * rows the API lists.
 */
describe('experiment results in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let experiment = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const runs = async (query = '') => (await get(`/api/v1/experiments/${experiment}/items${query}`)) as Run[];

  /** Export from the page's button in `format`; answers the file's text and the export record. */
  async function exportRuns(format: 'CSV' | 'JSON Lines', filterText: RegExp, shot?: string) {
    await page.getByRole('button', { name: 'Export' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByTestId('export-filter').textContent()).toMatch(filterText);
    await dialog.getByText(format, { exact: true }).click();
    await dialog.getByRole('button', { name: 'Start export' }).click();
    const download = dialog.getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 60_000 });
    if (shot) {
      await dismissToasts(page);
      expect(await review(page, shot)).toEqual([]);
    }
    const res = await fetch(new URL((await download.getAttribute('href'))!, app.url)); // the signed link
    expect(res.status).toBe(200);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    return { text: await res.text(), record: ((await get('/api/v1/exports')) as ExportRecord[])[0]! };
  }

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    upstream.handle(async (req, res) => {
      const q = /q-(\d+)/.exec(JSON.stringify(req.json?.messages ?? []))?.[1] ?? '';
      // A client error is not retried: the run of q-3 fails at once.
      const refused = { error: { message: 'this question is refused', type: 'invalid_request_error' } };
      if (q === '3') return sendJson(res, 400, refused);
      const content = Number(q) < 2 ? `answer q-${q}` : 'no idea';
      sendJson(res, 200, chat(content));
    });
    const post = async (path: string, body: unknown) => (await api(app, 'POST', path, { ...as(), body })).body.data;
    const dataset = (await post('/api/v1/datasets', { project_id: t.projectId, name: 'questions' })).id;
    const item = (i: number) => ({ id: `i${i}`, input: { question: `q-${i}` }, expected_output: `answer q-${i}` });
    const items = [0, 1, 2, 3].map(item);
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, { ...as(), body: { items } });
    const config = { expected_path: '$.expected' };
    const exact = { project_id: t.projectId, name: 'exact', type: 'exact_match', config };
    const evaluator = (await post('/api/v1/evaluators', exact)).id;
    const subject = { kind: 'prompt', template: 'Answer: {{question}}', provider: 'openai', model: 'gpt-4o-mini' };
    const body = { project_id: t.projectId, name: 'qa', dataset_id: dataset, subject, evaluator_ids: [evaluator] };
    experiment = (await post('/api/v1/experiments', body)).id;
    const done = async () => (await get(`/api/v1/experiments/${experiment}`)).status === 'completed';
    await waitUntil(done, 60_000, 'experiment done');
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('opens the results from the list: figures, every run, a run with its output', async () => {
    await page.goto(`${app.url}/experiments`);
    await page.getByRole('link', { name: 'Results of qa' }).click();
    await page.getByRole('heading', { name: 'qa', level: 1 }).waitFor();
    await page.getByText('Ran an inline prompt on openai gpt-4o-mini.').waitFor();
    const table = page.getByRole('table', { name: 'Item runs' });
    await table.getByText('i3').waitFor();
    expect(await table.getByRole('row').count()).toBe(5); // the header and four runs
    await table.getByText('this question is refused').first().waitFor();
    await page.getByText('Mean exact').waitFor();
    await table.getByText('i0').click();
    const drawer = page.getByRole('dialog', { name: 'Item i0, run #1' });
    await drawer.getByLabel('Output').getByText('answer q-0').waitFor();
    await drawer.getByText('exact 1').waitFor();
    await drawer.getByRole('button', { name: 'Close' }).click();
    await drawer.waitFor({ state: 'detached' });
    await dismissToasts(page).catch(() => {});
    expect(await review(page, 'experiment-results')).toEqual([]);
  }, 60_000);

  it('on a phone, shows each run as a card with the values the API lists, none wider than the screen', async () => {
    await page.setViewportSize(PHONE);
    await settle(page); // measured once the layout has followed the width
    const cards = page.getByRole('list', { name: 'Item runs' }).getByRole('listitem');
    await cards.first().waitFor();
    expect(await page.getByRole('table', { name: 'Item runs' }).count()).toBe(0); // cards instead of the table
    const listed = await runs();
    expect(await cards.count()).toBe(listed.length);
    // Costs here are below a cent, latencies below a second: the formats the page uses for them.
    const usd = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });
    const field = (card: Locator, label: string) =>
      card
        .locator('dl > div')
        .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
        .locator('dd')
        .textContent();
    for (const r of listed) {
      const card = cards.filter({ has: page.getByRole('button', { name: `${r.item_id} · run #${r.repetition + 1}` }) });
      expect(await card.count()).toBe(1);
      expect(await card.locator('.mantine-Badge-root').textContent()).toBe(r.status);
      if (r.error) expect(await field(card, 'Error')).toBe(r.error);
      else expect(await field(card, 'Output')).toBe(r.output);
      const scores = Object.entries(r.scores).map(([n, v]) => `${n} ${v ?? '—'}`);
      expect(await field(card, 'Scores')).toBe(scores.join(' · ') || '—');
      expect(await field(card, 'Latency')).toBe(r.latency_ms === null ? '—' : `${Math.round(r.latency_ms)} ms`);
      expect(await field(card, 'Cost')).toBe(r.cost_usd === null ? '—' : usd.format(r.cost_usd));
    }
    expect(listed.find((r) => r.item_id === 'i0')).toMatchObject({ output: 'answer q-0', scores: { exact: 1 } });
    expect(listed.find((r) => r.item_id === 'i3')?.error).toMatch(/this question is refused/);
    expect(
      await sticksOut(page, 'ul[aria-label="Item runs"], ul[aria-label="Item runs"] *', { selfScroll: true }),
    ).toBe(0);
    // A tap on a card opens its run; from the keyboard, the arrow moves to the next card and Enter opens it.
    await cards.filter({ hasText: 'answer q-0' }).click();
    const drawer = page.getByRole('dialog', { name: 'Item i0, run #1' });
    await drawer.getByLabel('Output').getByText('answer q-0').waitFor();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await cards.first().getByRole('button').focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction('document.activeElement?.closest("li")?.dataset.index === "1"');
    await page.keyboard.press('Enter');
    const second = listed[1]!;
    const next = page.getByRole('dialog', { name: `Item ${second.item_id}, run #${second.repetition + 1}` });
    await next.waitFor();
    await page.keyboard.press('Escape');
    await next.waitFor({ state: 'detached' });
    // The burger menu still opens and reaches the last page of the navigation.
    await page.getByRole('button', { name: 'Open navigation' }).click();
    const settings = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' });
    await settings.scrollIntoViewIfNeeded();
    expect(await settings.isVisible()).toBe(true);
    await settle(page);
    await page.screenshot({ path: `${SHOTS}/experiment-results-nav-390.png` });
    await page.getByRole('button', { name: 'Close navigation' }).click();
    await page.setViewportSize(DESKTOP);
    await page.getByRole('table', { name: 'Item runs' }).waitFor();
    await settle(page); // the navbar slides back in: measured before, it is still partly off the screen
    // At 1440×900 the whole navigation fits: its last link is on screen without scrolling it.
    const fits = await page.evaluate(`(() => {
      const nav = document.querySelector('#main-nav');
      const links = [...nav.querySelectorAll('a')];
      const last = links[links.length - 1].getBoundingClientRect();
      return last.bottom <= window.innerHeight && [...nav.querySelectorAll('*')].every((e) => e.scrollTop === 0
        && (getComputedStyle(e).overflowY === 'visible' || e.scrollHeight <= e.clientHeight));
    })()`);
    expect(fits).toBe(true);
  }, 60_000);

  it('exports every run as JSON Lines: the file holds the rows the API lists', async () => {
    const filter = new RegExp(`^experiment_id=${experiment}$`);
    const { text, record } = await exportRuns('JSON Lines', filter, 'experiment-results-export');
    expect(record).toMatchObject({
      resource: 'experiment_results',
      format: 'jsonl',
      status: 'completed',
      rows_written: 4,
      filter: expect.objectContaining({ experiment_id: experiment }),
    });
    const rows = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Run);
    const listed = await runs();
    const shape = (rs: Run[]) => rs.map((r) => [r.item_id, r.status, r.output]).sort();
    expect(shape(rows)).toEqual(shape(listed));
    expect(rows.find((r) => r.item_id === 'i0')?.scores).toEqual({ exact: 1 });
  }, 90_000);

  it('narrows the runs to the failed one from the URL, and exports just that as CSV', async () => {
    await page.getByLabel('Status of the runs').selectOption('error');
    await page.waitForURL(/status=error/);
    const table = page.getByRole('table', { name: 'Item runs' });
    await table.getByText('i0').waitFor({ state: 'detached' }); // the other runs leave once the filtered page is in
    await table.getByText('i3').waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    const { text, record } = await exportRuns('CSV', new RegExp(`^experiment_id=${experiment} · status=error$`));
    expect(record).toMatchObject({
      resource: 'experiment_results',
      format: 'csv',
      rows_written: 1,
      filter: expect.objectContaining({ status: 'error' }),
    });
    const [header, ...lines] = text.trim().split('\n');
    expect(header).toMatch(/^item_id,repetition,status,/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^i3,0,error,/);
    expect((await runs('?status=error')).map((r) => r.item_id)).toEqual(['i3']);
    expect(errors).toEqual([]);
  }, 90_000);
});
