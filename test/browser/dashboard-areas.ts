import type { Browser, Page, Request } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { DESKTOP, PHONE, SHOTS } from './ui';

/** What dashboard.test.ts's stack lends the tests below: its service, browser, page and helpers. */
export interface Dashboard {
  app: TestApp;
  browser: Browser;
  page: Page;
  t: SeededTenant;
  errors: string[];
  open: (p: string) => Promise<void>;
  check: (name: string, on?: Page) => Promise<void>;
  webProjectId: () => Promise<string>;
}

/**
 * The second half of dashboard.test.ts, registered inside its describe so the tests share its
 * service and browser (no second stack): prompts and sessions, alerts, share links and datasets,
 * switching organization and project, the phone navigation, and every other page with axe.
 */
export function areaTests(dash: Dashboard): void {
  it('shows a prompt’s versions with a diff, and a session as a conversation', async () => {
    const { app, page, t, open, check } = dash;
    const h = { token: t.admin.token, orgId: t.orgId };
    const created = (
      await api(app, 'POST', '/api/v1/prompts', {
        ...h,
        body: {
          project_id: t.projectId,
          name: 'greeter',
          version: { template: 'Hello {{name}}\nBe brief.', model: 'gpt-4o-mini' },
        },
      })
    ).body.data;
    const promptId = created.id ?? created.prompt_id;
    expect(
      (
        await api(app, 'POST', `/api/v1/prompts/${promptId}/versions?project_id=${t.projectId}`, {
          ...h,
          body: { template: 'Hello {{name}}\nBe warm and brief.', model: 'gpt-4o-mini' },
        })
      ).status,
    ).toBe(201);
    await open(`/prompts/${promptId}`);
    await page.waitForSelector('.diff .add');
    expect(await page.textContent('.diff .del')).toContain('Be brief.');
    expect(await page.textContent('.diff .add')).toContain('Be warm and brief.');
    await check('prompt');
    await api(app, 'POST', '/ingest/traces', {
      token: t.fullKey,
      body: {
        id: 'tr-chat',
        name: 'turn 1',
        session_id: 'chat-1',
        start_time: new Date().toISOString(),
        input: { q: 'hi there' },
        output: { a: 'hello!' },
      },
    });
    await open('/sessions/chat-1');
    await page.waitForSelector('.conversation li');
    expect(await page.textContent('.conversation')).toContain('hi there');
    await check('session');
  });

  it('creates an alert rule in the editor and opens its history', async () => {
    const { page, open, check } = dash;
    await open('/alerts');
    await page.getByLabel('Name', { exact: true }).fill('cost spike');
    await page.getByLabel('Measure').selectOption('cost');
    await page.getByLabel('Threshold', { exact: true }).fill('5');
    await page.click('button:has-text("Create rule")');
    await page.waitForSelector('.card h2:has-text("cost spike")');
    expect(await page.textContent('.cards')).toContain('cost above 5 over 15 min');
    await page.click('button:has-text("History")');
    await page.waitForSelector('text=No state changes yet');
    await check('alerts-editor');
  });

  it('opens a share link in the browser without signing in, and a dataset’s items', async () => {
    const { app, page, t, browser, open, check } = dash;
    const h = { token: t.admin.token, orgId: t.orgId };
    await open('/traces/tr-web');
    await page.click('button:has-text("Share without bodies")');
    const url = (await (await page.waitForSelector('[data-testid=share-url]')).textContent())!;
    const share = { url };
    const anon = await browser.newPage({ viewport: DESKTOP });
    await anon.goto(share.url.replace(/^https?:\/\/[^/]+/, app.url));
    await anon.waitForSelector('h1:has-text("Shared trace")');
    expect(await anon.textContent('main')).toContain('agent run');
    expect(await anon.textContent('main')).not.toContain('goal'); // shared without bodies
    await check('shared', anon);
    await anon.close();
    expect((await fetch(share.url.replace(/^https?:\/\/[^/]+/, app.url))).headers.get('content-type')).toContain(
      'application/json',
    ); // API clients: JSON
    const ds = (await api(app, 'POST', '/api/v1/datasets', { ...h, body: { project_id: t.projectId, name: 'golden' } }))
      .body.data.id;
    await api(app, 'POST', `/api/v1/datasets/${ds}/items?project_id=${t.projectId}`, {
      ...h,
      body: { items: [{ id: 'q1', input: { q: 'capital of France' }, expected_output: 'Paris' }] },
    });
    await open(`/datasets/${ds}`);
    await page.waitForSelector('[role=row][data-index]');
    expect(await page.textContent('[role=table]')).toContain('capital of France');
    await check('dataset');
  });

  it('switches organization and project: the next API request carries the new scope', async () => {
    const { app, page, t, open, webProjectId } = dash;
    // A second organization that the admin joins as a viewer.
    const other = await seedTenant(app, { name: 'Second org' });
    const invite = (
      await api(app, 'POST', `/api/v1/organizations/${other.orgId}/invitations`, {
        token: other.admin.token,
        orgId: other.orgId,
        body: { email: t.admin.email, role: 'viewer' },
      })
    ).body.data;
    expect(
      (await api(app, 'POST', '/api/v1/invitations/accept', { token: t.admin.token, body: { token: invite.token } }))
        .status,
    ).toBe(200);
    await open('/requests');
    await page.waitForSelector('[role=row][data-index]');
    const isApi = (r: Request) => new URL(r.url()).pathname.startsWith('/api/v1/');
    const seen: { path: string; org: string | undefined }[] = [];
    const record = (r: Request) =>
      void (isApi(r) && seen.push({ path: new URL(r.url()).pathname, org: r.headers()['x-organization-id'] }));
    page.on('request', record);
    const [next] = await Promise.all([
      page.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/requests'),
      page.getByLabel('Organization').selectOption({ label: 'Second org' }),
    ]);
    expect(next.headers()['x-organization-id']).toBe(other.orgId);
    // the other organization's (empty) log, never the first one's rows
    await page.waitForSelector('text=No requests yet');
    expect(await page.locator('[role=row][data-index]').count()).toBe(0);
    page.off('request', record);
    // no request after the switch names the old organization
    expect(seen.filter((x) => x.org !== other.orgId)).toEqual([]);
    // Back to the first organization, then one project of it: the request log asks for that project only.
    await page.getByLabel('Organization').selectOption(t.orgId);
    await page.waitForSelector('[role=row][data-index]');
    const webProject = await webProjectId();
    const [scoped] = await Promise.all([
      page.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/requests'),
      page.getByLabel('Project', { exact: true }).selectOption({ label: 'web-project' }),
    ]);
    expect(new URL(scoped.url()).searchParams.get('project_id')).toBe(webProject);
    expect(scoped.headers()['x-organization-id']).toBe(t.orgId);
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'All projects' });
  });

  it('collapses the navigation to a burger menu on a phone', async () => {
    const { page, open } = dash;
    await page.setViewportSize(PHONE);
    await open('/');
    const burger = page.getByRole('button', { name: 'Open navigation' });
    await burger.click();
    await page.getByRole('link', { name: 'Traces' }).click(); // the menu closes as the page opens
    await page.waitForSelector('main h1:has-text("Traces")');
    expect(await page.getByRole('button', { name: 'Open navigation' }).getAttribute('aria-expanded')).toBe('false');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${SHOTS}/navigation-390.png` });
    expect(await page.getByLabel('Organization').isVisible()).toBe(true); // the scope pickers move into the menu
    await page.getByRole('button', { name: 'Close navigation' }).click();
    await page.setViewportSize(DESKTOP);
  });

  it('renders every other page without errors, each passing axe', async () => {
    const { page, errors, open, check } = dash;
    const pages = [
      'sessions',
      'users',
      'prompts',
      'evaluators',
      'eval-runs',
      'datasets',
      'experiments',
      'alerts',
      'anomalies',
      'recommendations',
      'security',
      'audit',
      'shares',
    ];
    const tabs = ['projects', 'providers', 'members', 'exports', 'plan'].map((tab) => `settings?tab=${tab}`);
    for (const p of [...pages, ...tabs, 'traces', 'users/nobody', 'no-such-page']) {
      await open(`/${p}`);
      await page.waitForFunction('!document.querySelector("[aria-busy=true]")');
      if (p !== 'users/nobody') expect(await page.locator('[role=alert]').count()).toBe(0);
      await check(p.replace(/[?=/]/g, '-'));
    }
    expect(errors).toEqual([]);
  }, 600_000);
}
