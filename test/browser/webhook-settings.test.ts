import { createHmac } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../helpers/https-receiver';
import { dismissToasts, review } from './ui';
import { openSignedIn, stopAll } from './stack';

interface Webhook {
  id: string;
  secret: string;
  is_active: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  previous_secret_expires_at: string | null;
  header_names: string[];
}

/**
 * A webhook's settings for an operator, in a real browser against the real service: one the
 * service disabled (failing deliveries) is enabled again; a secret is rotated with a one-hour
 * overlap (the new one shown once signs the next test, the old one too); custom headers are set on
 * a new webhook and replaced as a set on edit. Each write is read back from the API and the receiver.
 */
describe('webhook settings in a browser', () => {
  let app: TestApp;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  let billing = '';
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (id: string) => (await api(app, 'GET', `/api/v1/webhooks/${id}`, as())).body.data as Webhook;
  const card = (name: string): Locator => page.getByRole('listitem', { name: `Webhook ${name}` });
  // From the top: a full-page capture of a scrolled page paints the sticky header over its middle.
  const shot = async (name: string) => (await page.evaluate('window.scrollTo(0, 0)'), review(page, name));
  const hmac = (key: string, raw: Buffer) => createHmac('sha256', key).update(raw).digest('hex');

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificates();
    const env = { WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_CA_FILE: caFile };
    app = await startTestApp({ role: 'all', env });
    t = await seedTenant(app);
    const body = { name: 'billing', url: receiver.url, events: ['request.created', 'alert.triggered'] };
    billing = (await api(app, 'POST', '/api/v1/webhooks', { ...as(), body })).body.data.id;
    // What the service does after weeks of dead-lettered deliveries (docs/webhooks.md, "Auto-disable").
    const disabledAt = new Date(Date.now() - 2 * 3600_000);
    await app.database
      .db('webhooks')
      .where({ id: billing })
      .update({ is_active: false, disabled_reason: 'failing', disabled_at: disabledAt });
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  }, 120_000);
  afterAll(async () => {
    await stopAll(browser, undefined, app);
    await receiver?.close();
  });

  it('shows a webhook the service disabled, since when, and enables it again', async () => {
    await page.goto(`${app.url}/webhooks`);
    const c = card('billing');
    await c.getByText('disabled: failing').waitFor();
    const notice = c.getByTestId('disabled-notice');
    expect(await notice.textContent()).toContain('Disabled automatically 2 hours ago');
    // No Resume next to it: the notice's Enable again is the one way back.
    expect(await c.getByRole('button', { name: 'Resume' }).count()).toBe(0);
    // The events picker says what each event is, from the API's catalogue.
    const types = (await api(app, 'GET', '/api/v1/event-types', as())).body.data as Record<string, string>[];
    await page
      .getByText(types.find((e) => e.name === 'trace.completed')!.description)
      .first()
      .waitFor();
    expect(await shot('webhook-disabled')).toEqual([]);

    await notice.getByRole('button', { name: 'Enable again' }).click();
    await c.getByText('active', { exact: true }).waitFor();
    await notice.waitFor({ state: 'detached' });
    expect(await get(billing)).toMatchObject({ is_active: true, disabled_reason: null, disabled_at: null });
    await dismissToasts(page).catch(() => {});
  }, 90_000);

  it('rotates the secret with a one-hour overlap: shown once, both sign the next test', async () => {
    const c = card('billing');
    await c.getByRole('button', { name: 'Rotate secret' }).click();
    const panel = c.getByRole('region', { name: 'Rotate the signing secret' });
    expect(await panel.getByRole('radio', { name: '24 hours' }).isChecked()).toBe(true); // the default
    await panel.getByRole('radio', { name: '1 hour' }).check();
    expect(await shot('webhook-rotate')).toEqual([]);
    const before = Date.now();
    await panel.getByRole('button', { name: 'Rotate secret' }).click();
    const secret = (await panel.getByTestId('rotated-secret').textContent())!.trim();
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    await panel.getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);

    const w = await get(billing);
    expect(w.secret).toBe(`${secret.slice(0, 4)}…`);
    const until = Date.parse(w.previous_secret_expires_at!);
    expect(until).toBeGreaterThanOrEqual(before + 3600_000 - 5_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 3600_000 + 5_000);
    await panel.getByText('The previous secret stays valid until').waitFor();
    await c.getByTestId('webhook-secret').getByText('previous secret valid until').waitFor();
    await dismissToasts(page).catch(() => {});
    expect(await shot('webhook-rotated')).toEqual([]);

    // The next test is signed with the new secret, and with the previous one too during the overlap.
    await c.getByRole('button', { name: 'Send test' }).click();
    const [req] = (await receiver.waitFor(1, 20_000)).slice(-1);
    expect(req!.headers['x-service-signature']).toBe(`sha256=${hmac(secret, req!.raw)}`);
    expect(String(req!.headers['webhook-signature']).split(' ')).toHaveLength(2);

    await panel.getByRole('button', { name: 'Done' }).click();
    await panel.waitFor({ state: 'detached' });
    await dismissToasts(page).catch(() => {});
  }, 90_000);

  it('sets custom headers on a new webhook, then replaces the set on edit (values write-only)', async () => {
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('Name').fill('tenant hook');
    await form.getByLabel('URL').fill(receiver.url);
    for (const [i, [name, value]] of [
      ['Authorization', 'Bearer receiver-token-1'],
      ['X-Tenant', 'acme'],
    ].entries()) {
      await form.getByRole('button', { name: 'Add header' }).click();
      await form.getByLabel(`Header ${i + 1} name`).fill(name!);
      await form.getByLabel(`Header ${i + 1} value`).fill(value!);
    }
    expect(await shot('webhook-headers-new')).toEqual([]);
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await form.getByTestId('secret').waitFor();
    await form.getByRole('button', { name: 'Done' }).click();

    const list = (await api(app, 'GET', '/api/v1/webhooks', as())).body.data as (Webhook & { name: string })[];
    const hook = list.find((w) => w.name === 'tenant hook')!;
    expect(hook.header_names).toEqual(['Authorization', 'X-Tenant']);
    const c = card('tenant hook');
    await c.getByText('headers: Authorization, X-Tenant').waitFor();
    const sent = receiver.requests.length;
    await c.getByRole('button', { name: 'Send test' }).click();
    let [req] = (await receiver.waitFor(sent + 1, 20_000)).slice(-1);
    expect(req!.headers).toMatchObject({ authorization: 'Bearer receiver-token-1', 'x-tenant': 'acme' });

    // Edit: the names are shown, never the values; replacing keeps only what the rows hold.
    await c.getByRole('button', { name: 'Edit' }).click();
    const edit = c.getByRole('form', { name: 'Edit “tenant hook”' });
    expect(await edit.getByTestId('header-names').textContent()).toBe('Now:AuthorizationX-Tenant');
    expect(await edit.getByTestId('header-row').count()).toBe(0);
    await edit.getByRole('switch', { name: 'Replace the headers' }).check();
    expect(await edit.getByLabel('Header 1 name').inputValue()).toBe('Authorization');
    expect(await edit.getByLabel('Header 1 value').inputValue()).toBe('');
    await edit.getByRole('button', { name: 'Remove header 1' }).click();
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await edit.getByText('A value').waitFor(); // X-Tenant's value must be typed again
    await edit.getByLabel('Header 1 value').fill('globex');
    await dismissToasts(page).catch(() => {});
    expect(await shot('webhook-headers-edit')).toEqual([]);
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await edit.waitFor({ state: 'detached' });

    expect((await get(hook.id)).header_names).toEqual(['X-Tenant']);
    await c.getByText('headers: X-Tenant').waitFor();
    await c.getByRole('button', { name: 'Send test' }).click();
    [req] = (await receiver.waitFor(sent + 2, 20_000)).slice(-1);
    expect(req!.headers['x-tenant']).toBe('globex');
    expect(req!.headers.authorization).toBeUndefined();
    expect(errors).toEqual([]);
  }, 120_000);
});
