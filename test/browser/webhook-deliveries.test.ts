import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../helpers/https-receiver';
import { seedFinishedDeliveries } from '../integration/webhooks/fixtures';
import { dismissToasts, review } from './ui';
import { openSignedIn, stopAll } from './stack';

interface Delivery {
  id: string;
  event_type: string;
  status: string;
}
interface Detail extends Delivery {
  workflow_id: string | null;
  attempts: { number: number; source: string; http_status: number | null }[];
}
const TEMPORAL_UI = 'http://127.0.0.1:8233';

/**
 * A webhook's deliveries for an operator, in a real browser against the real service: a test
 * sent from the page lands on top of twelve older dead-lettered deliveries; the list shows the
 * ten latest (and says where the older ones are), each with its Temporal workflow id, copied to
 * the clipboard from its row; the test delivery opens with its attempts, as the API records them.
 */
describe('webhook deliveries in a browser', () => {
  let app: TestApp;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let webhook = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificates();
    const env = { WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_CA_FILE: caFile, TEMPORAL_UI_URL: TEMPORAL_UI };
    app = await startTestApp({ role: 'all', env });
    t = await seedTenant(app);
    const body = { name: 'ops', url: receiver.url, events: ['request.created'] };
    webhook = (await api(app, 'POST', '/api/v1/webhooks', { ...as(), body })).body.data.id;
    // A receiver outage an hour ago left these dead-lettered.
    await seedFinishedDeliveries(app.database.db, webhook, t.orgId, 12, { createdAt: new Date(Date.now() - 3600_000) });
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  }, 120_000);
  afterAll(async () => {
    await stopAll(browser, undefined, app);
    await receiver?.close();
  });

  it('sends a test from the page; the ten latest deliveries show their workflow ids, copied from a row', async () => {
    await page.goto(`${app.url}/webhooks`);
    await page.getByRole('button', { name: 'Send test' }).click();
    await receiver.waitFor(1, 20_000);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const table = page.getByRole('table', { name: 'Latest deliveries' });
    await table.getByText('test', { exact: true }).waitFor();
    const listed = (await get(`/api/v1/webhooks/${webhook}/deliveries`)) as Delivery[];
    expect(listed).toHaveLength(10);
    expect(listed[0]).toMatchObject({ event_type: 'test', status: 'delivered' });
    expect(await table.getByRole('row').count()).toBe(11); // the header and the ten the API lists
    await page.getByText('Showing the 10 latest deliveries').waitFor();
    // The test was sent directly (no workflow); each of the nine others names its workflow and links to it.
    expect(await table.getByRole('row').nth(1).textContent()).toContain('none: sent directly');
    const cells = table.getByTestId('delivery-workflow');
    const ids = await cells.locator('code').evaluateAll((els) => els.map((e) => e.getAttribute('title')));
    expect(ids).toEqual(listed.slice(1).map((d) => `webhook-delivery-${d.id}`));
    const links = await cells
      .getByRole('link', { name: 'Temporal UI' })
      .evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(links).toEqual(ids.map((id) => `${TEMPORAL_UI}/namespaces/default/workflows/${id}`));
    const old = listed[1]!;
    await table.getByRole('button', { name: `Copy the workflow id of delivery ${old.id.slice(0, 8)}` }).click();
    await table.getByRole('button', { name: `Copied the workflow id of delivery ${old.id.slice(0, 8)}` }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(`webhook-delivery-${old.id}`);
    await dismissToasts(page).catch(() => {});
    expect(await review(page, 'webhook-deliveries')).toEqual([]);
  }, 90_000);

  it('opens the test delivery with its attempts as the API has them, and a real one with its workflow', async () => {
    const [test] = (await get(`/api/v1/webhooks/${webhook}/deliveries`)) as Delivery[];
    await page.getByRole('button', { name: `Open test delivery ${test!.id.slice(0, 8)}` }).click();
    const drawer = page.getByRole('dialog', { name: 'Delivery' });
    await drawer.locator('.attempt').first().waitFor();
    const d = (await get(`/api/v1/webhooks/${webhook}/deliveries/${test!.id}`)) as Detail;
    expect(d.attempts).toEqual([expect.objectContaining({ number: 1, source: 'test', http_status: 200 })]);
    expect(await drawer.locator('.attempt').count()).toBe(d.attempts.length);
    expect(await drawer.locator('.attempt').first().textContent()).toContain('Attempt #1');
    expect(d.workflow_id).toBeNull();
    await drawer.getByText('none: a test is sent once, directly').waitFor();
    expect(await review(page, 'webhook-delivery-attempts')).toEqual([]);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    // A real delivery's drawer: its workflow id, linked to Temporal and copied from there.
    const old = ((await get(`/api/v1/webhooks/${webhook}/deliveries`)) as Delivery[])[1]!;
    await page.getByRole('button', { name: `Open request.created delivery ${old.id.slice(0, 8)}` }).click();
    const wf = `webhook-delivery-${old.id}`;
    const href = await drawer.getByRole('link', { name: wf }).getAttribute('href');
    expect(href).toBe(`${TEMPORAL_UI}/namespaces/default/workflows/${wf}`);
    await drawer.getByRole('button', { name: 'Copy the workflow id' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(wf);
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
  }, 60_000);
});
