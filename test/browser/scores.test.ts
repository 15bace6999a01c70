import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { DESKTOP, dismissToasts, review } from './ui';
import { openSignedIn, startWithOpenAI } from './stack';

interface Score {
  id: string;
  name: string;
  target_type: string;
  request_id: string | null;
}
interface Experiment {
  id: string;
  name: string;
  status: string;
  counts: { pending: number; completed: number; error: number };
}

/**
 * The scores list and cancelling an experiment, in a real browser against the real service (API
 * and worker). Scores are written through the API on calls made through the proxy with the
 * OpenAI SDK (and on a trace and a session); the page filters them from its URL, opens a score's
 * request, and exports the filtered list, whose file holds exactly the rows the API lists. An
 * experiment on a slow model is cancelled from its row, after a confirmation; a viewer sees no
 * Cancel button.
 */
describe('scores and cancelling experiments in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let requests: string[] = [];
  let dataset = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const score = async (body: Record<string, unknown>) => {
    const res = await api(app, 'POST', '/api/v1/scores', { ...as(), body: { project_id: t.projectId, ...body } });
    expect(res.status).toBeLessThan(300);
  };
  const call = (content: string, session: string) =>
    new OpenAI({
      apiKey: t.fullKey,
      baseURL: `${app.url}/proxy/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-service-session-id': session },
    }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    upstream.handle(async (req, res) => {
      // The experiment's model is slow (seconds a call), so it is still running when cancelled.
      if (JSON.stringify(req.json?.messages ?? []).includes('Slowly')) await new Promise((r) => setTimeout(r, 4000));
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      });
    });
    await call('first question', 'chat-a');
    await call('second question', 'chat-a');
    await call('third question', 'chat-b');
    await api(app, 'POST', '/ingest/traces', {
      token: t.fullKey,
      body: { id: 'tr-1', name: 'agent run', start_time: new Date().toISOString() },
    });
    await waitUntil(
      async () => (await get('/api/v1/requests')).length === 3 && (await get('/api/v1/traces')).length === 1,
      15_000,
      'calls and trace stored',
    );
    requests = ((await get('/api/v1/requests')) as { id: string }[]).map((r) => r.id);
    await score({ request_id: requests[0], name: 'helpfulness', value: 0.9, comment: 'clear and short' });
    await score({ request_id: requests[1], name: 'tone', data_type: 'categorical', string_value: 'friendly' });
    await score({ request_id: requests[2], name: 'correct', data_type: 'boolean', string_value: 'false' });
    await score({ trace_id: 'tr-1', name: 'helpfulness', value: 0.4 });
    await score({ session_id: 'chat-a', name: 'helpfulness', value: 0.7 });
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await upstream?.close();
    await app?.stop();
  }, 60_000);

  const rows = () => page.getByRole('table', { name: 'Scores' }).getByRole('row');

  it('lists every score and filters them from the URL', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Scores' }).click();
    await page.waitForURL(/\/scores$/);
    await page.getByText('5 loaded (all)').waitFor();
    await dismissToasts(page);
    expect(await review(page, 'scores')).toEqual([]);

    await page.getByLabel('Name', { exact: true }).fill('helpfulness');
    await page.getByLabel('Name', { exact: true }).press('Enter');
    await page.waitForURL(/name=helpfulness/);
    const named = (await get('/api/v1/scores?name=helpfulness')) as Score[];
    expect(named).toHaveLength(3);
    await page.getByText('3 loaded (all)').waitFor();
    await page.getByLabel('On', { exact: true }).selectOption('request');
    await page.waitForURL(/target_type=request/);
    await page.getByText('1 loaded (all)').waitFor();
    expect(await rows().filter({ hasText: 'helpfulness' }).count()).toBe(1);
    await rows().filter({ hasText: 'clear and short' }).waitFor();
  }, 90_000);

  it('opens a score’s request', async () => {
    await page.goto(`${app.url}/scores?target_type=request&name=tone`);
    await page.getByText('1 loaded (all)').waitFor();
    await page.getByRole('link', { name: /^Request / }).click();
    await page.waitForURL(new RegExp(`/requests/${requests[1]}$`));
    await page.getByText('second question').first().waitFor();
  }, 60_000);

  it('opens a span’s score on its trace with that span selected', async () => {
    const at = (ms: number) => new Date(Date.now() - 60_000 + ms).toISOString();
    // The plan step starts first, so it is the span a trace opens on without a link.
    for (const [id, name, start] of [
      ['sp-plan', 'plan step', 0],
      ['sp-judge', 'judge step', 300],
    ] as const)
      await api(app, 'POST', '/ingest/spans', {
        token: t.fullKey,
        body: { id, trace_id: 'tr-1', name, span_type: 'tool', start_time: at(start), end_time: at(start + 200) },
      });
    await waitUntil(
      async () => ((await get('/api/v1/traces/tr-1')) as { spans: unknown[] }).spans.length === 2,
      15_000,
      'spans stored',
    );
    await score({ trace_id: 'tr-1', span_id: 'sp-judge', name: 'grounded', value: 1 });
    await page.goto(`${app.url}/scores?name=grounded`);
    await page.getByText('1 loaded (all)').waitFor();
    await page.getByRole('link', { name: /^Span / }).click();
    await page.waitForURL(/\/traces\/tr-1\?span=sp-judge$/);
    // The linked span, not the first one, is selected and shown.
    await page.getByRole('heading', { name: 'judge step' }).waitFor();
    expect(await page.getByRole('heading', { name: 'plan step' }).count()).toBe(0);
  }, 60_000);

  it('exports the filtered scores as CSV, row for row what the API lists', async () => {
    await page.goto(`${app.url}/scores?name=helpfulness`);
    await page.getByText('3 loaded (all)').waitFor();
    await page.getByRole('button', { name: 'Export' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByTestId('export-filter').textContent()).toBe('name=helpfulness');
    await dialog.getByText('CSV', { exact: true }).click();
    await dialog.getByRole('button', { name: 'Start export' }).click();
    const download = dialog.getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 60_000 });
    const res = await fetch(new URL((await download.getAttribute('href'))!, app.url));
    expect(res.status).toBe(200);
    const [header, ...lines] = (await res.text()).trim().split('\n');
    expect(header).toMatch(/^id,project_id,name,/);
    const listed = (await get('/api/v1/scores?name=helpfulness')) as Score[];
    expect(lines.map((l) => l.split(',')[0]).sort()).toEqual(listed.map((s) => s.id).sort());
    expect(lines.every((l) => l.split(',')[2] === 'helpfulness')).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  }, 90_000);

  it('cancels a running experiment from its row after a confirmation; a viewer sees no Cancel', async () => {
    dataset = (
      await api(app, 'POST', '/api/v1/datasets', { ...as(), body: { project_id: t.projectId, name: 'questions' } })
    ).body.data.id as string;
    const items = Array.from({ length: 8 }, (_, i) => ({ id: `i${i}`, input: { question: `q-${i}` } }));
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, { ...as(), body: { items } });
    const started = await api(app, 'POST', '/api/v1/experiments', {
      ...as(),
      body: {
        project_id: t.projectId,
        name: 'slow run',
        dataset_id: dataset,
        concurrency: 1,
        subject: { kind: 'prompt', provider: 'openai', model: 'gpt-4o-mini', template: 'Slowly: {{question}}' },
      },
    });
    expect(started.status).toBe(201);
    const id = started.body.data.id as string;

    const viewer = await browser.newPage({ viewport: DESKTOP });
    await viewer.goto(`${app.url}/#dev_token=${t.viewer.token}`);
    await viewer.waitForSelector('main h1');
    await viewer.goto(`${app.url}/experiments`);
    await viewer.getByTestId('experiment-slow run').getByText('running').waitFor();
    expect(await viewer.getByRole('button', { name: /^Cancel experiment/ }).count()).toBe(0);
    await viewer.close();

    await page.goto(`${app.url}/experiments`);
    const row = page.getByTestId('experiment-slow run');
    await row.getByText('running').waitFor();
    await row.getByRole('button', { name: 'Cancel experiment slow run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel experiment “slow run”?' });
    await dialog.waitFor();
    // not a second "Cancel" beside "Cancel experiment"
    await dialog.getByRole('button', { name: 'Keep running' }).waitFor();
    expect(await review(page, 'experiment-cancel')).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel experiment' }).click();
    await row.getByText('cancelled').waitFor({ timeout: 15_000 });
    expect(await row.getByRole('button', { name: /^Cancel experiment/ }).count()).toBe(0);
    const x = (await get(`/api/v1/experiments/${id}`)) as Experiment;
    expect(x.status).toBe('cancelled');
    expect(x.counts.completed).toBeLessThan(8); // stopped before the end
  }, 120_000);

  it('cancels a running prompt experiment, every variant with it', async () => {
    const subject = (template: string) => ({ kind: 'prompt', provider: 'openai', model: 'gpt-4o-mini', template });
    const started = await api(app, 'POST', '/api/v1/prompt-experiments', {
      ...as(),
      body: {
        project_id: t.projectId,
        name: 'slow grid',
        concurrency: 1,
        items: { dataset_id: dataset },
        variants: [
          { label: 'a', subject: subject('Slowly: {{question}}') },
          { label: 'b', subject: subject('Slowly, briefly: {{question}}') },
        ],
      },
    });
    expect(started.status).toBe(201);
    const id = started.body.data.id as string;
    await page.reload();
    const grid = page.getByTestId('prompt-experiment-slow grid');
    await grid.getByText('running').first().waitFor();
    await grid.getByRole('button', { name: 'Cancel prompt experiment slow grid' }).click();
    await page
      .getByRole('dialog', { name: 'Cancel prompt experiment “slow grid”?' })
      .getByRole('button', { name: 'Cancel prompt experiment' })
      .click();
    await grid.getByText('cancelled').first().waitFor({ timeout: 15_000 });
    const g = (await get(`/api/v1/prompt-experiments/${id}`)) as { status: string; variants: { status: string }[] };
    expect(g.status).toBe('cancelled');
    expect(g.variants.map((v) => v.status)).toEqual(['cancelled', 'cancelled']);
    expect(errors).toEqual([]);
  }, 120_000);
});
