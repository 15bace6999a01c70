import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../helpers/https-receiver';
import { requestRow, writeRows } from '../integration/analytics/seed';
import { waitUntil } from '../integration/webhooks/fixtures';
import { seedMonitoring } from './monitoring-seed';
import { openSignedIn, stopAll } from './stack';
import { DESKTOP, review } from './ui';

/**
 * The Monitoring and Webhooks areas acted on in a real browser against the real service: an
 * anomaly acknowledged then resolved (with its evidence chart and its model's hourly cost), a
 * recommendation dismissed, a security finding resolved, reopened and dismissed, an alert rule
 * edited, a webhook edited, a delivery opened with its attempts and redelivered (a second try while
 * it runs answers 409, shown as a notification), and a recovery of failed deliveries started,
 * cancelled, and run to the end. Each effect is read back from the API. A viewer sees the same
 * views without write buttons. Screenshots of each new view at 1440×900 and 390×844, light and
 * dark, each checked with axe.
 */
describe('monitoring and webhooks in a browser', () => {
  let app: TestApp;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  const errors: string[] = [];
  const ids = { anomaly: '', recommendation: '', finding: '', alert: '', webhook: '', delivery: '' };

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const read = async <T = Record<string, unknown>>(path: string): Promise<T> => {
    const r = await api(app, 'GET', path, as());
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data as T;
  };
  const open = async (p: string, on: Page = page) => {
    await on.goto(`${app.url}${p}`);
    await on.waitForSelector('main h1');
  };
  // Toasts close on their own after a few seconds: the screenshots wait for them, from the top of the page.
  const check = async (name: string, on: Page = page) => {
    await on.waitForSelector('.mantine-Notification-root', { state: 'detached', timeout: 15_000 });
    await on.evaluate('window.scrollTo(0, 0)');
    expect(await review(on, name)).toEqual([]);
  };
  const drawer = (on: Page = page) => on.getByRole('dialog');
  // The receiver answers after `ms` (a slow receiver keeps a delivery or a recovery running).
  const answerAfter = (ms: number) => receiver.handle((_r, res) => void setTimeout(() => res.end('ok'), ms));

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificates();
    app = await startTestApp({
      role: 'all',
      env: {
        WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
        WEBHOOK_CA_FILE: caFile,
        TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
      },
    });
    t = await seedTenant(app);
    Object.assign(ids, await seedMonitoring(app, t, receiver.url));
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await stopAll(browser, undefined, app);
  });

  it('acknowledges then resolves an anomaly, beside its evidence chart and its hourly series', async () => {
    // Calls around the anomaly (gpt-4o, in its window and the day before) and a costlier one of another model.
    const H = 3_600_000;
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * H).toISOString();
    const call = (model: string, cost_usd: number, created_at: string) =>
      requestRow({ orgId: t.orgId, projectId: t.projectId }, { model, cost_usd, created_at });
    const inWindow = at(1.5);
    await writeRows(app.database.db, [
      call('gpt-4o', 1.25, inWindow),
      call('gpt-4o', 1.25, inWindow),
      call('gpt-4o-mini', 9, inWindow),
      call('gpt-4o', 0.3, at(20)),
    ]);
    await open('/anomalies');
    const asked = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/stats');
    await page.getByRole('button', { name: /^Open cost anomaly/ }).click();
    await drawer().getByRole('button', { name: 'Acknowledge' }).waitFor();
    // The series is the anomaly's dimension (model gpt-4o) in its own project, hour by hour.
    const stats = new URL((await asked).url());
    expect(Object.fromEntries(stats.searchParams)).toMatchObject({
      project_id: t.projectId,
      model: 'gpt-4o',
      granularity: 'hour',
    });
    const hours = (Date.parse(stats.searchParams.get('to')!) - Date.parse(stats.searchParams.get('from')!)) / H;
    expect(hours).toBeGreaterThanOrEqual(25); // from 24 h before the anomaly's hour, up to now (at most 6 h after)
    expect(hours).toBeLessThanOrEqual(31);
    const series = drawer().getByRole('figure', { name: /^Cost per hour, model: gpt-4o/ });
    await series.locator('canvas').waitFor(); // uPlot drew it
    await series.getByText(/^The hours of the anomaly's window/).waitFor(); // the shaded band, named
    expect(await drawer().locator('figure canvas').count()).toBe(2); // and the evidence chart beside it
    // Its busiest hour reads as the API's: gpt-4o's two calls of the window, not gpt-4o-mini's.
    const answer = await read<{ series: { bucket: string; cost_usd: number }[] }>(`/api/v1/stats${stats.search}`);
    const peak = Math.max(...answer.series.map((p) => p.cost_usd));
    expect(peak).toBeCloseTo(2.5);
    expect(await drawer().getByTestId('anomaly-series-peak').textContent()).toContain('$2.50');
    expect(await drawer().textContent()).toContain('$0.40 – $1.20');
    await check('anomaly');
    await drawer().getByRole('button', { name: 'Acknowledge' }).click();
    await waitUntil(
      async () => (await read<{ status: string }>(`/api/v1/anomalies/${ids.anomaly}`)).status === 'acknowledged',
      10_000,
      'acknowledged',
    );
    await drawer().getByRole('button', { name: 'Resolve' }).click();
    await drawer().getByText('Resolved', { exact: true }).waitFor();
    const a = await read<{ status: string; resolved_by: string | null }>(`/api/v1/anomalies/${ids.anomaly}`);
    expect(a.status).toBe('resolved');
    expect(a.resolved_by).toBeTruthy();
    expect(page.url()).toContain(`id=${ids.anomaly}`); // the open anomaly is in the address
  });

  it('dismisses a recommendation, with its evidence and saving', async () => {
    await open('/recommendations');
    await page.getByRole('button', { name: 'Open Use gpt-4o-mini for short prompts' }).click();
    await drawer().getByRole('button', { name: 'Dismiss' }).waitFor();
    const text = await drawer().textContent();
    expect(text).toContain('$11.57'); // the monthly saving
    expect(text).toContain('80.0%'); // evidence, read by its key's meaning
    expect(text).toContain('$12.40');
    await check('recommendation');
    await drawer().getByRole('button', { name: 'Dismiss' }).click();
    await drawer().getByText('Dismissed', { exact: true }).waitFor();
    expect((await read<{ status: string }>(`/api/v1/recommendations/${ids.recommendation}`)).status).toBe('dismissed');
  });

  it('opens a security finding (masked excerpt, sightings), resolves, reopens and dismisses it', async () => {
    await open('/security');
    await page.getByRole('button', { name: 'Open secret finding github_token' }).click();
    await drawer().getByRole('button', { name: 'Resolve' }).waitFor();
    expect(await drawer().textContent()).toContain('ghp_****');
    expect(await drawer().getByText('Last seen', { exact: true }).count()).toBe(1); // the sightings
    await check('finding');
    const status = async () => (await read<{ status: string }>(`/api/v1/security/findings/${ids.finding}`)).status;
    await drawer().getByRole('button', { name: 'Resolve' }).click();
    await drawer().getByRole('button', { name: 'Reopen' }).waitFor();
    expect(await status()).toBe('resolved');
    await drawer().getByRole('button', { name: 'Reopen' }).click();
    await drawer().getByRole('button', { name: 'Dismiss' }).waitFor();
    expect(await status()).toBe('open');
    await drawer().getByRole('button', { name: 'Dismiss' }).click();
    await drawer().getByRole('button', { name: 'Reopen' }).waitFor();
    expect(await status()).toBe('dismissed');
  });

  it('edits an existing alert rule', async () => {
    await open('/alerts');
    const card = page.locator('.card', { has: page.locator('h2', { hasText: 'cost watch' }) });
    await card.getByRole('button', { name: 'Edit' }).click();
    const form = card.locator('form');
    await form.getByLabel('Name', { exact: true }).fill('cost watch (raised)');
    await form.getByLabel('Threshold', { exact: true }).fill('12.5');
    await form.getByLabel('Window (minutes)').fill('30');
    await form.getByLabel('Per').selectOption('model');
    await check('alert-edit');
    await form.getByRole('button', { name: 'Save rule' }).click();
    await page.waitForSelector('.card h2:has-text("cost watch (raised)")');
    expect(await page.textContent('.cards')).toContain('cost above 12.5 over 30 min per model');
    const rule = await read<{ name: string; threshold: number; window_minutes: number; group_by: string | null }>(
      `/api/v1/alerts/${ids.alert}`,
    );
    expect(rule).toMatchObject({ name: 'cost watch (raised)', threshold: 12.5, window_minutes: 30, group_by: 'model' });
  });

  it('edits a webhook', async () => {
    await open('/webhooks');
    await page.getByRole('button', { name: 'Edit' }).click();
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'Edit “ops”' }) });
    await form.getByLabel('Name', { exact: true }).fill('ops pager');
    await form.getByLabel('alert.triggered').check();
    await check('webhook-edit');
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await page.waitForSelector('main h2:has-text("ops pager")');
    const w = await read<{ name: string; events: string[]; url: string }>(`/api/v1/webhooks/${ids.webhook}`);
    expect(w.name).toBe('ops pager');
    expect(w.events.sort()).toEqual(['alert.triggered', 'request.created']);
    expect(w.url).toBe(receiver.url);
  });

  it(
    'opens a delivery with its Temporal link and attempts, redelivers it, ' +
      'and a second try while it runs is a notification',
    async () => {
      answerAfter(4000);
      await open('/webhooks');
      await page.getByRole('button', { name: 'Deliveries' }).click();
      await page.getByRole('button', { name: `Open request.created delivery ${ids.delivery.slice(0, 8)}` }).click();
      await drawer().getByRole('button', { name: 'Redeliver' }).waitFor();
      expect(
        await drawer()
          .getByRole('link', { name: `webhook-delivery-${ids.delivery}` })
          .getAttribute('href'),
      ).toBe(`http://127.0.0.1:8233/namespaces/default/workflows/webhook-delivery-${ids.delivery}`);
      await drawer().getByText('No attempt recorded yet', { exact: false }).waitFor();
      const before = receiver.requests.length;
      await drawer().getByRole('button', { name: 'Redeliver' }).click();
      await page.getByText('Redelivery 1 started', { exact: false }).waitFor();
      await receiver.waitFor(before + 1, 20_000); // the receiver holds it for 4 s: the workflow is running
      await drawer().getByRole('button', { name: 'Redeliver' }).click();
      await page.getByText('Still being delivered', { exact: false }).waitFor(); // 409 delivery_in_progress
      await waitUntil(
        async () =>
          (await read<{ status: string }>(`/api/v1/webhooks/${ids.webhook}/deliveries/${ids.delivery}`)).status ===
          'delivered',
        30_000,
        'redelivered',
      );
      await drawer().locator('.attempt').first().waitFor({ timeout: 15_000 });
      const d = await read<{
        redeliveries: number;
        attempts: { number: number; source: string; http_status: number | null }[];
      }>(`/api/v1/webhooks/${ids.webhook}/deliveries/${ids.delivery}`);
      expect(d.redeliveries).toBe(1);
      expect(d.attempts.at(-1)).toMatchObject({ source: 'redelivery', http_status: 200 });
      expect(await drawer().textContent()).toContain(`Attempt #${d.attempts.at(-1)?.number}`);
      await check('delivery');
      await page.keyboard.press('Escape');
    },
    90_000,
  );

  it('recovers failed deliveries since a time: progress, cancel, then a run to the end', async () => {
    answerAfter(3000);
    await open('/webhooks');
    await page.getByRole('button', { name: 'Recoveries' }).click();
    await page.getByText('No recoveries yet').waitFor();
    await check('recoveries-empty');
    await page.getByRole('button', { name: 'Recover deliveries' }).click();
    await page.getByRole('button', { name: 'Cancel recovery' }).waitFor();
    await page.getByRole('button', { name: 'Cancel recovery' }).click();
    type Rec = { id: string; status: string; delivered: number; matched: number };
    const first = await waitUntil(
      async () => (await read<Rec[]>(`/api/v1/webhooks/${ids.webhook}/recoveries`)).find((r) => r.status !== 'running'),
      30_000,
      'cancelled',
    );
    expect(first.status).toBe('cancelled');
    await page.locator('.recovery', { hasText: 'cancelled' }).waitFor();
    // The receiver is back: a second recovery sends what is still dead-lettered, its progress polled to the end.
    answerAfter(0);
    await page.getByRole('button', { name: 'Recover deliveries' }).click();
    await page.locator('.recovery').first().getByText('completed').waitFor({ timeout: 30_000 });
    const [last] = await read<Rec[]>(`/api/v1/webhooks/${ids.webhook}/recoveries`);
    expect(last.status).toBe('completed');
    expect(last.delivered).toBeGreaterThan(0);
    await check('recoveries');
  }, 90_000);

  it('shows a viewer the same views without write buttons', async () => {
    const viewer = await browser.newPage({ viewport: DESKTOP });
    viewer.on('pageerror', (e) => errors.push(String(e)));
    await viewer.goto(`${app.url}/#dev_token=${t.viewer.token}`);
    await viewer.waitForSelector('main h1');
    await open(`/anomalies?id=${ids.anomaly}`, viewer);
    await drawer(viewer)
      .getByRole('figure', { name: /per hour/ })
      .waitFor();
    await open(`/security?id=${ids.finding}`, viewer);
    await drawer(viewer).getByText('Masked excerpt').waitFor();
    expect(
      await drawer(viewer)
        .getByRole('button', { name: /Resolve|Dismiss|Reopen/ })
        .count(),
    ).toBe(0);
    await open('/alerts', viewer);
    await viewer.locator('.card').first().waitFor();
    expect(await viewer.getByRole('button', { name: /Edit|Pause|Delete/ }).count()).toBe(0);
    await open('/webhooks', viewer);
    await viewer.getByRole('button', { name: 'Deliveries' }).click();
    await viewer
      .getByRole('button', { name: /^Open request.created delivery/ })
      .first()
      .click();
    await drawer(viewer).getByText('Attempts, oldest first').waitFor();
    expect(await viewer.getByRole('button', { name: /Redeliver|Edit|Send test/ }).count()).toBe(0);
    await viewer.keyboard.press('Escape');
    await viewer.getByRole('button', { name: 'Recoveries' }).click();
    await viewer.locator('.recovery').first().waitFor();
    expect(await viewer.getByRole('button', { name: /Recover deliveries|Cancel recovery/ }).count()).toBe(0);
    await viewer.close();
    expect(errors).toEqual([]);
  }, 60_000);
});
