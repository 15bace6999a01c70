import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream';
import { requestRow, writeRows } from '../integration/analytics/seed';
import { waitUntil } from '../integration/webhooks/fixtures';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';
import { DESKTOP, dismissToasts, review } from './ui';
import { SESSION, settingsTests, type Workspace } from './workspace-settings';

/**
 * The evaluation and workspace areas in a real browser against the real service: evaluators of
 * every type and score configs created and edited in forms, an eval run started from a filter,
 * followed live, its results linked to their calls and its workflow, another run cancelled;
 * members' roles, removal and invitations; rate limits; an API key revoked; saved filters; a
 * session shared and the link revoked; and a viewer who sees none of the write controls. Each
 * write is read back from the API; each new view is screenshot and checked with axe (ui.ts).
 */
describe('evaluation and workspace in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let judgeDelay = 0;
  const errors: string[] = [];
  const requestIds: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const open = async (p: string, on: Page = page) => {
    await on.goto(`${app.url}${p}`);
    await on.waitForSelector('main h1');
  };
  /** Toasts confirm each write; they go before a screenshot so they do not cover the view. */
  const quiet = (on: Page) => dismissToasts(on);
  const check = async (name: string, on: Page = page) => {
    await quiet(on);
    expect(await review(on, name)).toEqual([]);
  };
  const dialog = () => page.getByRole('dialog');
  const confirm = async (trigger: string, button: string) => {
    await page.getByRole('button', { name: trigger, exact: true }).click();
    await dialog().getByRole('button', { name: button, exact: true }).click();
    await dialog().waitFor({ state: 'detached' });
  };
  // The settings tests (workspace-settings.ts) read the stack through these getters once it is up.
  const ws: Workspace = {
    get app() {
      return app;
    },
    get page() {
      return page;
    },
    get t() {
      return t;
    },
    ...{ open, get, check, confirm, dialog },
  };

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI({ TEMPORAL_UI_URL: 'http://127.0.0.1:8233' }));
    upstream.handle(async (_req, res) => {
      await new Promise((r) => setTimeout(r, judgeDelay));
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: JSON.stringify({ score: 4, reasoning: 'fine' }) },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
      });
    });
    // Three calls of one session, ten minutes ago, with their bodies.
    const rows = [0, 1, 2].map((i) =>
      requestRow(
        { orgId: t.orgId, projectId: t.projectId },
        {
          log_mode: 'full',
          session_id: SESSION,
          created_at: new Date(Date.now() - 600_000 + i * 1000).toISOString(),
          request_body: JSON.stringify({
            messages: [{ role: 'user', content: `What is the capital of France? (${i})` }],
          }),
          response_body: JSON.stringify({
            choices: [{ message: { role: 'assistant', content: 'Paris is the capital of France.' } }],
          }),
        },
      ),
    );
    requestIds.push(...rows.map((r) => r.id));
    await writeRows(app.database.db, rows);
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('creates evaluators of every type, edits one and deletes another', async () => {
    await open('/evaluators');
    await page.waitForSelector('text=No evaluators yet');
    await check('evaluators-empty');
    const create = async (name: string, type: string, fill: () => Promise<void> = async () => {}) => {
      await page.getByRole('button', { name: 'New evaluator' }).first().click();
      await dialog().getByLabel('Name', { exact: true }).fill(name);
      await dialog().getByLabel('Type', { exact: true }).selectOption(type);
      await fill();
      await dialog().getByRole('button', { name: 'Create evaluator' }).click();
      await dialog().waitFor({ state: 'detached' });
      await page.waitForSelector(`td:has-text("${name}")`);
    };
    await create('mentions-paris', 'contains', () => dialog().getByLabel('Text to find').fill('Paris'));
    await create('starts-with-p', 'regex', () => dialog().getByLabel('Pattern').fill('^P'));
    await create('exact', 'exact_match', () =>
      dialog().getByLabel('Expected value').fill('Paris is the capital of France.'),
    );
    await create('is-json', 'json_schema');
    await create('close-to', 'levenshtein', () => dialog().getByLabel('Expected value').fill('Paris'));
    await create('fast', 'latency', () => dialog().getByLabel('Longest latency (ms)').fill('500'));
    await create('cheap', 'cost', () => dialog().getByLabel('Highest cost (USD)').fill('0.05'));
    await create('judge', 'llm_judge', async () => {
      await dialog().getByLabel('Judge model').fill('gpt-4o-mini');
      await dialog().getByLabel('Highest score').fill('5');
      await check('evaluator-form-judge');
    });
    const all = (await get(`/api/v1/evaluators?project_id=${t.projectId}`)) as {
      name: string;
      type: string;
      config: Record<string, unknown>;
    }[];
    expect(all.map((e) => e.type).sort()).toEqual([
      'contains',
      'cost',
      'exact_match',
      'json_schema',
      'latency',
      'levenshtein',
      'llm_judge',
      'regex',
    ]);
    expect(all.find((e) => e.name === 'fast')?.config).toEqual({ max_ms: 500 });
    expect(all.find((e) => e.name === 'judge')?.config).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      output: { type: 'numeric', min: 1, max: 5 },
    });

    // Edit: the contains check becomes case sensitive on another word.
    await page.getByRole('button', { name: 'Edit mentions-paris' }).click();
    expect(await dialog().getByLabel('Text to find').inputValue()).toBe('Paris');
    await dialog().getByLabel('Text to find').fill('capital');
    await dialog().getByLabel('Case sensitive').check();
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().waitFor({ state: 'detached' });
    await waitUntil(
      async () =>
        (
          (await get(`/api/v1/evaluators?project_id=${t.projectId}`)) as {
            name: string;
            config: Record<string, unknown>;
          }[]
        ).find((e) => e.name === 'mentions-paris')?.config.value === 'capital',
      5000,
      'the edit',
    );
    const edited = (
      (await get(`/api/v1/evaluators?project_id=${t.projectId}`)) as { name: string; config: Record<string, unknown> }[]
    ).find((e) => e.name === 'mentions-paris');
    expect(edited?.config).toMatchObject({ value: 'capital', case_sensitive: true, field: 'output' });

    await confirm('Delete starts-with-p', 'Delete');
    await page.waitForSelector('td:has-text("starts-with-p")', { state: 'detached' });
    expect(
      ((await get(`/api/v1/evaluators?project_id=${t.projectId}`)) as { name: string }[]).map((e) => e.name),
    ).not.toContain('starts-with-p');
  }, 180_000);

  it('creates, edits and archives score configs', async () => {
    await open('/evaluators');
    const create = async (name: string, type: string, fill: () => Promise<void> = async () => {}) => {
      await page.getByRole('button', { name: 'New score config' }).first().click();
      await dialog().getByLabel('Name', { exact: true }).fill(name);
      await dialog().getByLabel('Type', { exact: true }).selectOption(type);
      await fill();
      await dialog().getByRole('button', { name: 'Create score config' }).click();
      await dialog().waitFor({ state: 'detached' });
      await page.waitForSelector(`td:has-text("${name}")`);
    };
    await create('quality', 'numeric', () => dialog().getByLabel('Highest value').fill('5'));
    await create('tone', 'categorical', () => dialog().getByLabel('Categories').fill('kind=1, rude=0'));
    await create('correct', 'boolean');
    await page.getByRole('button', { name: 'Edit quality' }).click();
    await dialog().getByLabel('Highest value').fill('10');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().waitFor({ state: 'detached' });
    await confirm('Archive correct', 'Archive');
    await page.waitForSelector('text=archived');
    const configs = (await get(`/api/v1/score-configs?project_id=${t.projectId}&include_archived=true`)) as {
      name: string;
      data_type: string;
      min: number | null;
      max: number | null;
      categories: { label: string; value: number }[] | null;
      is_archived: boolean;
    }[];
    const by = (n: string) => configs.find((c) => c.name === n);
    expect(by('quality')).toMatchObject({ data_type: 'numeric', min: 0, max: 10, is_archived: false });
    expect(by('tone')).toMatchObject({
      data_type: 'categorical',
      categories: [
        { label: 'kind', value: 1 },
        { label: 'rude', value: 0 },
      ],
    });
    expect(by('correct')).toMatchObject({ data_type: 'boolean', is_archived: true });
    await check('evaluators');
  }, 90_000);

  it('starts an eval run from a filter, follows it to the end and links its results; cancels another', async () => {
    await open('/eval-runs');
    await page.waitForSelector('text=No eval runs yet');
    await page.getByRole('button', { name: 'Start eval run' }).first().click();
    await dialog().getByLabel('mentions-paris (contains)').check();
    await dialog().getByLabel('Model').fill('gpt-4o-mini');
    await check('eval-run-start');
    await dialog().getByRole('button', { name: 'Start run' }).click();
    await dialog().waitFor({ state: 'detached' });
    // The list polls while the run moves: the badge turns completed without a reload.
    await page.waitForSelector('tbody td:has-text("completed")', { timeout: 30_000 });
    const [run] = (await get('/api/v1/eval-runs')) as {
      id: string;
      status: string;
      workflow_id: string;
      counts: { completed: number };
      target: { kind: string; filter: Record<string, unknown> };
    }[];
    expect(run).toMatchObject({
      status: 'completed',
      counts: { completed: 3 },
      target: { kind: 'requests', filter: { model: 'gpt-4o-mini' } },
    });
    expect(await page.getByRole('link', { name: 'Temporal UI' }).getAttribute('href')).toBe(
      `http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(run.workflow_id)}`,
    );
    await page.getByRole('button', { name: 'Results' }).click();
    await page.waitForSelector('section[aria-label="Run results"] tbody tr');
    const hrefs = await page
      .locator('section[aria-label="Run results"] tbody a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.sort()).toEqual(requestIds.map((id) => `/requests/${id}`).sort());
    expect(await page.locator('section[aria-label="Run results"] tbody').textContent()).toContain('mentions-paris');
    await check('eval-runs');

    // A judge that takes its time: the run stays running until cancelled from the list.
    judgeDelay = 8000;
    await page.getByRole('button', { name: 'Start eval run' }).first().click();
    await dialog().getByLabel('judge (llm judge)').check();
    await dialog().getByRole('button', { name: 'Start run' }).click();
    await dialog().waitFor({ state: 'detached' });
    await confirm('Cancel', 'Cancel run');
    const cancelled = ((await get('/api/v1/eval-runs')) as { status: string; evaluator_ids: string[] }[])[0];
    expect(cancelled.status).toBe('cancelled');
    await page.waitForSelector('tbody td:has-text("cancelled")');
    judgeDelay = 0;
  }, 90_000);

  settingsTests(ws);

  it('shows a viewer no write controls', async () => {
    const viewer = await browser.newPage({ viewport: DESKTOP });
    viewer.on('pageerror', (e) => errors.push(String(e)));
    await viewer.goto(`${app.url}/#dev_token=${t.editor.token}`); // made a viewer above
    await viewer.waitForSelector('main h1');
    const buttons = async (p: string, wait: string) => {
      await open(p, viewer);
      await viewer.waitForSelector(wait);
      return viewer
        .locator('main button')
        .evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''));
    };
    const evaluators = await buttons('/evaluators', 'td:has-text("mentions-paris")');
    expect(evaluators.filter((b) => /New|Edit|Delete|Archive/.test(b))).toEqual([]);
    const runs = await buttons('/eval-runs', 'td:has-text("cancelled")');
    expect(runs.filter((b) => /Start|Cancel/.test(b))).toEqual([]);
    const shares = await buttons('/shares', 'td:has-text("revoked")');
    expect(shares.filter((b) => /Revoke/.test(b))).toEqual([]);
    const plan = await buttons('/settings?tab=plan', 'td:has-text("50,000")');
    expect(plan.filter((b) => /Save limit|Edit|Remove/.test(b))).toEqual([]);
    await open(`/sessions/${SESSION}`, viewer);
    await viewer.waitForSelector('text=Call to gpt-4o-mini');
    expect(await viewer.getByRole('button', { name: 'Share', exact: true }).count()).toBe(0);
    await viewer.close();
    expect(errors).toEqual([]);
  }, 60_000);
});
