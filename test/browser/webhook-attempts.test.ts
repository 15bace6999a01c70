import { randomUUID } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { insertAttempt } from '../../src/webhooks/attempts';
import { NO_EVIDENCE } from '../../src/webhooks/evidence';
import { buildBody } from '../../src/webhooks/payload';
import { deliveryWorkflowId } from '../../src/webhooks/policy';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { DESKTOP, PHONE, review, settle, sticksOut } from './ui';
import { openSignedIn, stopAll } from './stack';

interface Attempt {
  delivery_id: string;
  number: number;
  http_status: number | null;
  error_message: string | null;
}
interface Page_ {
  data: Attempt[];
  next_cursor: string | null;
}
const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * A webhook's attempt log and health for an operator, in a real browser against the real service:
 * 70 attempts seeded with known outcomes fill a first page of 50 and a second one read through the
 * cursor, both as `GET …/attempts` answers them; a filter goes into the URL (and a link with it
 * opens the same view); the health row shows the success rate `GET …/stats` answers for 24 h and 7 d.
 */
describe('webhook attempt log in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let webhook = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body;
  const shot = async (name: string) => (await page.evaluate('window.scrollTo(0, 0)'), review(page, name));
  const table = (): Locator => page.getByRole('table', { name: 'Attempt log' });
  /** Each body row as the API's fields would read in it: the delivery's short id, `#n`, the HTTP status. */
  const rows = async () =>
    (await table()
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from(tr.querySelectorAll('td')).map((td) =>
            ((td as { textContent: string | null }).textContent ?? '').trim(),
          ),
        ),
      )) as string[][];
  const expected = (list: Attempt[]) =>
    list.map((a) => [
      a.delivery_id.slice(0, 8),
      `#${a.number}`,
      a.http_status === null ? 'no answer' : `${a.http_status}`,
    ]);
  const shown = (cells: string[][]) => cells.map((c) => [c[1]!, c[3]!, c[4]!]);

  /** A delivery with its attempts: [HTTP status or null (no answer), ms] each, a minute or more apart. */
  const seed = async (status: string, created: number, tries: [number | null, number][]) => {
    const db = app.database.db;
    const id = randomUUID();
    const body = buildBody('request.created', webhook, new Date(created), { request: { id } });
    await db('webhook_deliveries').insert({
      id,
      webhook_id: webhook,
      org_id: t.orgId,
      event_type: 'request.created',
      body,
      status,
      attempt_count: tries.length,
      workflow_id: deliveryWorkflowId(id),
      created_at: new Date(created),
    });
    for (const [i, [http, ms]] of tries.entries()) {
      const ok = http !== null && http < 300;
      await insertAttempt(db, id, {
        number: i + 1,
        source: 'delivery',
        started_at: new Date(created + (2 ** i - 1) * MIN),
        duration_ms: ms,
        http_status: http,
        error_message: ok ? null : http === null ? 'timeout after 10 s' : `HTTP ${http}`,
        evidence: NO_EVIDENCE,
      });
    }
  };

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    const body = { name: 'billing', url: 'https://hooks.example.com/billing', events: ['request.created'] };
    webhook = (await api(app, 'POST', '/api/v1/webhooks', { ...as(), body })).body.data.id;
    const now = Date.now();
    // A receiver outage two hours ago: 12 deliveries dead-lettered after 5 attempts, 4 delivered on the 2nd.
    for (let i = 0; i < 12; i++)
      await seed('dead_lettered', now - 2 * HOUR + i * 1000, [
        [503, 120],
        [503, 140],
        [503, 160],
        [null, 10_000],
        [503, 180],
      ]);
    for (let i = 0; i < 4; i++)
      await seed('delivered', now - HOUR + i * 1000, [
        [500, 90],
        [200, 60],
      ]);
    // Three days ago: two delivered at once (the 7-day window only).
    for (let i = 0; i < 2; i++) await seed('delivered', now - 72 * HOUR + i * 1000, [[200, 45]]);
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(async () => {
    await stopAll(browser, undefined, app);
  });

  it('lists the first page of attempts, loads the next through the cursor, as the API pages them', async () => {
    await page.goto(`${app.url}/webhooks`);
    await page.getByRole('button', { name: 'Attempt log' }).click();
    await table().waitFor();
    expect(new URL(page.url()).searchParams.get('log')).toBe(webhook);
    const first = (await get(`/api/v1/webhooks/${webhook}/attempts`)) as unknown as Page_;
    expect(first.data).toHaveLength(50);
    expect(first.next_cursor).not.toBeNull();
    expect(shown(await rows())).toEqual(expected(first.data));
    // The newest attempt: the last delivered one's second try, 200 with no error.
    const top = (await rows())[0]!;
    expect(top[6]).toBe('—');
    expect(await page.getByTestId('attempts-loaded').textContent()).toBe('50 attempts loaded');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByTestId('attempts-loaded').getByText('70 attempts loaded (all)').waitFor();
    const cursor = encodeURIComponent(first.next_cursor!);
    const second = (await get(`/api/v1/webhooks/${webhook}/attempts?cursor=${cursor}`)) as unknown as Page_;
    expect(second.data).toHaveLength(20);
    expect(second.next_cursor).toBeNull();
    expect(shown((await rows()).slice(50))).toEqual(expected(second.data));
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    // A row's delivery opens the delivery detail the page already has, with its attempts.
    const timedOut = second.data.find((a) => a.http_status === 503)!;
    await table()
      .getByRole('button', { name: `Open delivery ${timedOut.delivery_id.slice(0, 8)} (request.created)` })
      .first()
      .click();
    const drawer = page.getByRole('dialog', { name: 'Delivery' });
    await drawer.locator('.attempt').nth(4).waitFor();
    expect(await drawer.locator('.attempt').count()).toBe(5);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  }, 90_000);

  it('on a phone, shows each attempt as a card with the values the API lists, none wider than the screen', async () => {
    await page.setViewportSize(PHONE);
    await settle(page); // measured once the layout has followed the width
    const cards = page.getByRole('list', { name: 'Attempt log' });
    await cards.waitFor();
    expect(await table().count()).toBe(0); // cards instead of the table, not beside it
    expect(await cards.getByRole('listitem').count()).toBe(70);
    const first = ((await get(`/api/v1/webhooks/${webhook}/attempts`)) as unknown as Page_).data;
    // Each card's values under their labels, read for the first three attempts the API lists.
    for (const [i, a] of first.slice(0, 3).entries()) {
      const card = cards.getByRole('listitem').nth(i);
      const value = (label: string) =>
        card
          .locator('dl > div')
          .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
          .locator('dd')
          .textContent();
      expect(await value('Delivery')).toBe(a.delivery_id.slice(0, 8));
      expect(await value('Attempt')).toBe(`#${a.number}`);
      expect(await value('HTTP')).toBe(a.http_status === null ? 'no answer' : `${a.http_status}`);
      expect(await value('Error')).toBe(a.error_message ?? '—');
    }
    expect(await sticksOut(page, 'ul[aria-label="Attempt log"] *')).toBe(0);
    // The card's delivery is the same button: reached and opened from the keyboard.
    const top = first[0]!;
    await cards
      .getByRole('listitem')
      .first()
      .getByRole('button', { name: `Open delivery ${top.delivery_id.slice(0, 8)} (request.created)` })
      .focus();
    await page.keyboard.press('Enter');
    const drawer = page.getByRole('dialog', { name: 'Delivery' });
    await drawer.locator('.attempt').first().waitFor();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await page.setViewportSize(DESKTOP);
    await table().waitFor();
  }, 60_000);

  it('shows the success rate /stats answers for the window picked; the window is in the URL', async () => {
    const health = page.getByTestId('webhook-health');
    const day = (await get(`/api/v1/webhooks/${webhook}/stats?window=24h`)).data;
    expect(day.success_rate).toBeCloseTo(4 / 16);
    await health.getByText('25.0%', { exact: true }).waitFor();
    expect(await health.textContent()).toContain('12 dead lettered');
    await page.getByText('7 d', { exact: true }).click();
    const week = (await get(`/api/v1/webhooks/${webhook}/stats?window=7d`)).data;
    expect(week.success_rate).toBeCloseTo(6 / 18);
    await health.getByText('33.3%', { exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('health')).toBe('7d');
    expect(await shot('webhook-attempts')).toEqual([]);
  }, 90_000);

  it('filters by outcome and time in the URL; a link with them opens the same view', async () => {
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('delivered');
    await page.getByRole('combobox', { name: 'Started' }).selectOption('24h');
    await page.waitForURL((u) => u.searchParams.get('status') === 'delivered' && u.searchParams.get('range') === '24h');
    await page.getByTestId('attempts-loaded').getByText('4 attempts loaded (all)').waitFor();
    const since = encodeURIComponent(new Date(Date.now() - 24 * HOUR - MIN).toISOString());
    const ok = (await get(`/api/v1/webhooks/${webhook}/attempts?status=delivered&since=${since}`)) as unknown as Page_;
    expect(ok.data.map((a) => a.http_status)).toEqual([200, 200, 200, 200]);
    expect(shown(await rows())).toEqual(expected(ok.data));
    // The same URL in a fresh load: the log open, the filters set, the same rows.
    const url = page.url();
    await page.goto(url);
    await table().waitFor();
    expect(await page.getByRole('combobox', { name: 'Outcome' }).inputValue()).toBe('delivered');
    expect(shown(await rows())).toEqual(expected(ok.data));
    await page.getByRole('combobox', { name: 'Response' }).selectOption('5xx');
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('failed');
    await page.waitForURL((u) => u.searchParams.get('http_status') === '5xx');
    await page.waitForURL((u) => u.searchParams.get('status') === 'failed');
    // 52 failed 5xx attempts in the day: a first page of 50, as the API answers it.
    const failed = (await get(
      `/api/v1/webhooks/${webhook}/attempts?status=failed&http_status=5xx&since=${since}`,
    )) as unknown as Page_;
    expect(failed.next_cursor).not.toBeNull();
    await page.getByTestId('attempts-loaded').getByText('50 attempts loaded', { exact: true }).waitFor();
    expect(shown(await rows())).toEqual(expected(failed.data));
    expect(await shot('webhook-attempts-filtered')).toEqual([]);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => !u.searchParams.has('status') && u.searchParams.get('log') === webhook);
    // Closing the log takes it and its filters out of the URL.
    await page.getByRole('button', { name: 'Attempt log' }).click();
    await page.waitForURL((u) => u.search === '');
    expect(errors).toEqual([]);
  }, 90_000);
});
