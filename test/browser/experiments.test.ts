import type { Browser, Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream';
import { DESKTOP, dismissToasts, PHONE, review, settle, sticksOut } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

interface Experiment {
  id: string;
  name: string;
  status: string;
  repetitions: number;
  dataset_version: string;
  subject: Record<string, unknown>;
  evaluator_ids: string[];
  counts: { pending: number; completed: number; error: number };
  scores: { name: string; mean: number | null }[];
}

/**
 * Experiments in a real browser against the real service (API and worker): two experiments
 * started from the form (a stored prompt version with 2 repetitions at a past dataset version,
 * and a model with an inline prompt), followed live until done, then compared with the 95 %
 * intervals the API computes. The model is a fake upstream that answers 4 of 6 questions right
 * under the stored prompt and all of them under the inline one.
 */
describe('experiments in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let dataset = '';
  let firstVersion = '';
  let evaluator = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const experiments = async () => (await get('/api/v1/experiments')) as Experiment[];
  const check = async (name: string) => {
    await dismissToasts(page);
    await page.evaluate('window.scrollTo(0, 0)');
    expect(await review(page, name)).toEqual([]);
  };

  /** A phone card's value under its label (`dt`, matched whole). */
  const field = (card: Locator, label: string) =>
    card
      .locator('dl > div')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label.replace(/[()/]/g, '\\$&')}$`) }) })
      .locator('dd');

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    upstream.handle(async (req, res) => {
      const text = JSON.stringify(req.json?.messages ?? []);
      const q = /q-(\d+)/.exec(text)?.[1] ?? '';
      await new Promise((r) => setTimeout(r, 150)); // slow enough to watch the progress move
      const content = text.includes('Briefly') || Number(q) < 4 ? `answer q-${q}` : 'no idea';
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      });
    });
    await api(app, 'POST', '/api/v1/prompts', {
      ...as(),
      body: {
        project_id: t.projectId,
        name: 'qa',
        version: { template: [{ role: 'user', content: 'Answer: {{question}}' }], model: 'gpt-4o-mini' },
      },
    });
    dataset = (
      await api(app, 'POST', '/api/v1/datasets', { ...as(), body: { project_id: t.projectId, name: 'questions' } })
    ).body.data.id;
    const items = Array.from({ length: 6 }, (_, i) => ({
      id: `i${i}`,
      input: { question: `q-${i}` },
      expected_output: `answer q-${i}`,
    }));
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, { ...as(), body: { items } });
    firstVersion = (await get(`/api/v1/datasets/${dataset}/versions`))[0].version;
    // A later version with a seventh item: the first experiment runs on the version before it.
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, {
      ...as(),
      body: { items: [{ id: 'i6', input: { question: 'q-6' }, expected_output: 'answer q-6' }] },
    });
    evaluator = (
      await api(app, 'POST', '/api/v1/evaluators', {
        ...as(),
        body: { project_id: t.projectId, name: 'exact', type: 'exact_match', config: { expected_path: '$.expected' } },
      })
    ).body.data.id;
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('starts an experiment on a prompt version at a past dataset version, and follows it live', async () => {
    await page.goto(`${app.url}/experiments`);
    await page.getByText('No experiments yet').waitFor();
    await page.getByRole('button', { name: 'New experiment' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Start experiment' }).click();
    await dialog.getByText('Name the experiment').waitFor(); // nothing is sent half-filled
    await dialog.getByText('Choose a dataset').waitFor();
    await dialog.getByLabel('Name').fill('qa v1');
    await dialog.getByLabel('Dataset').selectOption(dataset);
    await dialog.getByLabel('Version', { exact: true }).selectOption(firstVersion);
    await dialog.getByLabel('Prompt', { exact: true }).selectOption('qa');
    await dialog.getByLabel('Prompt version', { exact: true }).selectOption('1');
    await dialog.getByLabel('exact (exact match)').check();
    await dialog.getByLabel('Repetitions').fill('2');
    await check('experiment-start');
    await dialog.getByRole('button', { name: 'Start experiment' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByTestId('experiment-qa v1');
    await row.getByText('running').waitFor(); // live: the row shows the run going …
    await row.getByText('completed').waitFor({ timeout: 60_000 }); // … and finishing, with no reload
    await row.getByText('12 / 12 runs').waitFor();
    const [x] = await experiments();
    expect(x).toMatchObject({
      name: 'qa v1',
      status: 'completed',
      repetitions: 2,
      dataset_version: firstVersion,
      evaluator_ids: [evaluator],
      counts: { completed: 12, error: 0, pending: 0 },
    });
    expect(x!.subject).toMatchObject({ kind: 'prompt', provider: 'openai' });
    expect(x!.scores).toEqual([expect.objectContaining({ name: 'exact', mean: expect.closeTo(4 / 6, 5) })]);
    await row.getByText(/exact 0\.667/).waitFor();
  }, 90_000);

  it('starts one on a model with an inline prompt, and compares both with their intervals', async () => {
    await page.getByRole('button', { name: 'New experiment' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('briefly');
    await dialog.getByLabel('Dataset').selectOption(dataset);
    await dialog.getByText('A model').click();
    await dialog.getByLabel('Prompt', { exact: true }).fill('Briefly: {{question}}');
    await dialog.getByRole('textbox', { name: 'Model' }).fill('gpt-4o-mini');
    await dialog.getByLabel('exact (exact match)').check();
    await dialog.getByRole('button', { name: 'Start experiment' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('experiment-briefly').getByText('completed').waitFor({ timeout: 60_000 });
    const all = await experiments();
    const b = all.find((e) => e.name === 'briefly')!;
    const a = all.find((e) => e.name === 'qa v1')!;
    expect(b).toMatchObject({
      status: 'completed',
      repetitions: 1,
      counts: { completed: 7 },
      subject: expect.objectContaining({ template: 'Briefly: {{question}}', model: 'gpt-4o-mini' }),
    });
    expect(b.dataset_version > firstVersion).toBe(true); // the latest version, with the seventh item

    await page.getByTestId('experiment-qa v1').getByRole('checkbox').check();
    await page.getByTestId('experiment-briefly').getByRole('checkbox').check();
    const table = page.getByRole('region', { name: 'Aggregates' });
    await table.waitFor();
    const cmp = await get(`/api/v1/experiments/compare?ids=${a.id},${b.id}`);
    const r3 = (v: number) => String(Math.round(v * 1000) / 1000);
    const [sa, sb] = cmp.experiments.map(
      (e: { aggregate: { scores: { mean: number; ci_low: number; ci_high: number }[] } }) => e.aggregate.scores[0],
    );
    expect(sa.ci_low).toBeLessThan(sa.mean); // 4 of 6 right: a real interval
    const cells = table.getByTestId('score-exact');
    expect(await cells.nth(0).locator('p').first().textContent()).toBe(
      `${r3(sa.mean)} [${r3(sa.ci_low)}, ${r3(sa.ci_high)}]`,
    );
    expect(await cells.nth(1).locator('p').first().textContent()).toBe(
      `${r3(sb.mean)} [${r3(sb.ci_low)}, ${r3(sb.ci_high)}]`,
    );
    expect(await cells.nth(1).textContent()).toContain(`+${r3(sb.mean - sa.mean)}`);
    await page.getByText('0 regressed items').waitFor();
    await check('experiments-compare');

    // On a phone each experiment is a card: its name on top, the same mean, interval and delta under the score.
    await page.setViewportSize(PHONE);
    await settle(page); // measured once the layout has followed the width
    const cards = page.getByRole('list', { name: 'Aggregates' }).getByRole('listitem');
    await cards.first().waitFor();
    expect(await table.count()).toBe(0); // the cards instead of the table, not beside it
    expect(await cards.count()).toBe(2);
    expect(await field(cards.nth(0), 'Experiment').textContent()).toBe('qa v1baseline');
    expect(await field(cards.nth(1), 'Experiment').textContent()).toBe('briefly');
    const score = (i: number) => field(cards.nth(i), 'exact (95 % CI)');
    expect(await score(0).locator('p').first().textContent()).toBe(
      `${r3(sa.mean)} [${r3(sa.ci_low)}, ${r3(sa.ci_high)}]`,
    );
    expect(await score(1).locator('p').first().textContent()).toBe(
      `${r3(sb.mean)} [${r3(sb.ci_low)}, ${r3(sb.ci_high)}]`,
    );
    expect(await score(1).textContent()).toContain(`+${r3(sb.mean - sa.mean)}`);
    // The items side by side: one card per item, each experiment's output under its name.
    const items = page.getByRole('list', { name: 'Items side by side' }).getByRole('listitem');
    type Item = { item_id: string; runs: Record<string, { outputs: unknown[] } | undefined> };
    const listed = cmp.items as Item[];
    expect(await items.count()).toBe(listed.length);
    const out = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
    for (const [i, it] of listed.slice(0, 2).entries()) {
      expect(await field(items.nth(i), 'Item').textContent()).toBe(it.item_id);
      for (const x of [a, b]) {
        const run = it.runs[x.id];
        expect(await field(items.nth(i), x.name).locator('p').first().textContent()).toBe(
          run ? out(run.outputs[0]) : '—',
        );
      }
    }
    expect(await sticksOut(page, 'ul[aria-label="Aggregates"] *, ul[aria-label="Items side by side"] *')).toBe(0);
    await page.setViewportSize(DESKTOP);
    await table.waitFor();
  }, 90_000);

  it('starts a prompt experiment over two prompt versions, and shows the winner and the grid', async () => {
    const prompt = ((await get('/api/v1/prompts')) as { id: string; name: string }[]).find((p) => p.name === 'qa')!;
    await api(app, 'POST', `/api/v1/prompts/${prompt.id}/versions`, {
      ...as(),
      body: { template: [{ role: 'user', content: 'Briefly: {{question}}' }], model: 'gpt-4o-mini' },
    });
    await page.reload();
    await page.getByRole('button', { name: 'New prompt experiment' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('qa v1 vs v2');
    await dialog.getByLabel('Dataset').selectOption(dataset);
    await dialog.getByLabel('qa v1').check();
    await dialog.getByRole('button', { name: 'Start prompt experiment' }).click();
    await dialog.getByText('Choose 2 to 8 prompt versions').waitFor(); // one version is not a comparison
    await dialog.getByLabel('qa v2').check();
    await dialog.getByLabel('exact (exact match)').check();
    await dialog.getByRole('button', { name: 'Start prompt experiment' }).click();
    await dialog.waitFor({ state: 'detached' });
    const card = page.getByTestId('prompt-experiment-qa v1 vs v2');
    await card.getByTestId('winner').waitFor({ timeout: 60_000 }); // followed live to its end
    type Cell = { outputs: unknown[]; scores: Record<string, number> };
    const [g] = (await get('/api/v1/prompt-experiments')) as {
      status: string;
      variants: { label: string; experiment_id: string; scores: { name: string; mean: number | null }[] }[];
      winners: { name: string; label: string; mean: number }[];
      rows: { item_id: string; input: unknown; expected_output: unknown; cells: Cell[] }[];
    }[];
    expect(g!.variants.map((v) => v.label)).toEqual(['qa v1', 'qa v2']);
    expect(g!.winners).toEqual([expect.objectContaining({ name: 'exact', label: 'qa v2', mean: 1 })]);
    expect(g!.rows).toHaveLength(7);
    expect(await card.getByTestId('winner').textContent()).toBe('exact: qa v2 wins (1)');
    // v1's wrong answers, cell by cell
    await card.getByRole('region', { name: 'Items by variant of qa v1 vs v2' }).getByText('no idea').first().waitFor();
    await card.getByText('completed').first().waitFor();
    await check('prompt-experiment');

    // On a phone the variants and the grid are cards: an item's input on top, each variant's output and scores
    // under its label, as the API lists them.
    await page.setViewportSize(PHONE);
    await settle(page); // measured once the layout has followed the width
    const items = card.getByRole('list', { name: 'Items by variant of qa v1 vs v2' }).getByRole('listitem');
    await items.first().waitFor();
    expect(await card.getByRole('region', { name: 'Items by variant of qa v1 vs v2' }).count()).toBe(0);
    expect(await items.count()).toBe(g!.rows.length);
    const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
    const r3 = (v: number | null) => (v === null ? '—' : String(Math.round(v * 1000) / 1000));
    for (const [i, row] of g!.rows.slice(0, 3).entries()) {
      const item = field(items.nth(i), 'Item').locator('p');
      expect(await item.nth(0).textContent()).toBe(json(row.input));
      expect(await item.nth(1).textContent()).toBe(`expected ${json(row.expected_output)}`);
      for (const [j, v] of g!.variants.entries()) {
        const cell = row.cells[j]!;
        const shown = field(items.nth(i), v.label).locator('p');
        expect(await shown.nth(0).textContent()).toBe(json(cell.outputs[0]));
        const scores = Object.entries(cell.scores).map(([n, x]) => `${n} ${r3(x)}`);
        expect(await shown.nth(1).textContent()).toBe(scores.join(' · '));
      }
    }
    const variants = card.getByRole('list', { name: 'Variants of qa v1 vs v2' }).getByRole('listitem');
    expect(await variants.count()).toBe(2);
    for (const [i, v] of g!.variants.entries()) {
      expect(await field(variants.nth(i), 'Variant').textContent()).toBe(v.label);
      const means = v.scores.map((x) => `${x.name} ${r3(x.mean)}`).join(' · ');
      expect(await field(variants.nth(i), 'Mean scores').textContent()).toBe(means);
    }
    const lists = 'ul[aria-label="Items by variant of qa v1 vs v2"], ul[aria-label="Variants of qa v1 vs v2"]';
    expect(await sticksOut(page, `${lists}, :is(${lists}) *`)).toBe(0);
    await page.setViewportSize(DESKTOP);
    await card.getByRole('region', { name: 'Items by variant of qa v1 vs v2' }).waitFor();
    expect(errors).toEqual([]);
  }, 90_000);
});
