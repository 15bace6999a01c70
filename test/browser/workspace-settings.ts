import type { Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import type { ApiResult, SeededTenant } from '../helpers/auth';
import { waitUntil } from '../integration/webhooks/fixtures';

/** The session of the three calls workspace.test.ts seeds, shared by the link test below. */
export const SESSION = 'sess-workspace';

/** What workspace.test.ts's stack lends the settings tests: its service, page and helpers. */
export interface Workspace {
  app: TestApp;
  page: Page;
  t: SeededTenant;
  open: (p: string, on?: Page) => Promise<void>;
  get: (path: string) => Promise<ApiResult['body']['data']>;
  check: (name: string, on?: Page) => Promise<void>;
  confirm: (trigger: string, button: string) => Promise<void>;
  dialog: () => Locator;
}

/**
 * The workspace settings part of workspace.test.ts, registered inside its describe so the tests
 * share its service and browser (no second stack): members' roles, removal and invitations; rate
 * limits; an API key revoked; saved filters; a session shared and the link revoked.
 */
export function settingsTests(ws: Workspace): void {
  it('changes a member’s role, removes a member, invites and revokes the invitation', async () => {
    const { page, t, open, get, check, confirm } = ws;
    await open('/settings?tab=members');
    await page.getByLabel(`Role of ${t.editor.email}`).selectOption('viewer');
    await waitUntil(
      async () =>
        ((await get(`/api/v1/organizations/${t.orgId}/members`)) as { email: string; role: string }[]).find(
          (m) => m.email === t.editor.email,
        )?.role === 'viewer',
      5000,
      'the role change',
    );
    await confirm(`Remove ${t.viewer.email}`, 'Remove');
    expect(
      ((await get(`/api/v1/organizations/${t.orgId}/members`)) as { email: string }[]).map((m) => m.email),
    ).not.toContain(t.viewer.email);
    await page.getByLabel('E-mail').fill('newcomer@example.test');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.waitForSelector('td:has-text("newcomer@example.test")');
    await check('settings-members');
    await confirm('Revoke the invitation to newcomer@example.test', 'Revoke');
    await waitUntil(
      async () =>
        ((await get(`/api/v1/organizations/${t.orgId}/invitations`)) as { email: string; status: string }[]).find(
          (i) => i.email === 'newcomer@example.test',
        )?.status === 'revoked',
      5000,
      'the invitation revoked',
    );
  }, 90_000);

  it('sets and edits a project’s rate limit beside the plan and usage', async () => {
    const { page, t, open, get, check } = ws;
    await open('/settings?tab=plan');
    await page.waitForSelector('text=No rate limits');
    await page.getByLabel('Requests per user').fill('100');
    await page.getByLabel('Window').selectOption('3600');
    await page.getByRole('button', { name: 'Save limit' }).click();
    await page.waitForSelector('td:has-text("1 h")');
    expect((await get(`/api/v1/rate-limits?project_id=${t.projectId}`))[0]).toMatchObject({
      requests_per_window: 100,
      tokens_per_window: null,
      window_seconds: 3600,
    });
    await page.getByRole('button', { name: /^Edit the limit of/ }).click();
    expect(await page.getByLabel('Requests per user').inputValue()).toBe('100');
    await page.getByLabel('Tokens per user').fill('50000');
    await page.getByRole('button', { name: 'Save limit' }).click();
    await page.waitForSelector('td:has-text("50,000")');
    expect((await get(`/api/v1/rate-limits?project_id=${t.projectId}`))[0]).toMatchObject({
      requests_per_window: 100,
      tokens_per_window: 50000,
      window_seconds: 3600,
    });
    expect(await page.textContent('main')).toContain('Requests this month');
    await check('settings-plan');
  }, 60_000);

  it('revokes an API key, with each key’s last use shown', async () => {
    const { page, t, open, get, dialog } = ws;
    await open('/settings');
    await page.waitForSelector('th:has-text("Last used")');
    await page.locator('tr', { hasText: 'public key' }).getByRole('button', { name: 'Revoke' }).click();
    await dialog().getByRole('button', { name: 'Revoke', exact: true }).click();
    await waitUntil(
      async () =>
        ((await get('/api/v1/api-keys')) as { id: string; is_active: boolean }[]).find((k) => k.id === t.publicKeyId)
          ?.is_active === false,
      5000,
      'the key revoked',
    );
  });

  it('creates, edits and deletes a saved filter', async () => {
    const { page, open, get, check, confirm, dialog } = ws;
    await open('/settings?tab=filters');
    await page.waitForSelector('text=No saved filters yet');
    await page.getByRole('button', { name: 'New saved filter' }).first().click();
    await dialog().getByLabel('Name', { exact: true }).fill('mini calls');
    await dialog().getByRole('textbox', { name: 'Filter' }).fill('model=gpt-4o-mini\nstatus=200');
    await dialog().getByLabel('Visible to').selectOption('project');
    await dialog().getByRole('button', { name: 'Create saved filter' }).click();
    await dialog().waitFor({ state: 'detached' });
    await page.waitForSelector('td:has-text("mini calls")');
    const [saved] = (await get('/api/v1/saved-filters')) as {
      id: string;
      name: string;
      view: string;
      filter: Record<string, unknown>;
      visibility: string;
    }[];
    expect(saved).toMatchObject({
      name: 'mini calls',
      view: 'requests',
      filter: { model: 'gpt-4o-mini', status: '200' },
      visibility: 'project',
    });
    await page.getByRole('button', { name: 'Edit mini calls' }).click();
    await dialog().getByLabel('Name', { exact: true }).fill('mini errors');
    await dialog().getByRole('textbox', { name: 'Filter' }).fill('model=gpt-4o-mini\nstatus=5xx');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().waitFor({ state: 'detached' });
    await page.waitForSelector('td:has-text("mini errors")');
    expect(await get(`/api/v1/saved-filters/${saved.id}`)).toMatchObject({
      name: 'mini errors',
      filter: { model: 'gpt-4o-mini', status: '5xx' },
    });
    await check('settings-filters');
    await confirm('Delete mini errors', 'Delete');
    await page.waitForSelector('text=No saved filters yet');
    expect(await get('/api/v1/saved-filters')).toEqual([]);
  }, 60_000);

  it('shares a session, then revokes the link from the shares list', async () => {
    const { app, page, open, get, check, confirm } = ws;
    await open(`/sessions/${SESSION}`);
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const url = (await (await page.waitForSelector('[data-testid=share-url]')).textContent())!;
    await check('session-share');
    const [share] = (await get('/api/v1/shares')) as {
      id: string;
      resource_type: string;
      resource_id: string;
      revoked_at: string | null;
    }[];
    expect(share).toMatchObject({ resource_type: 'session', resource_id: SESSION, revoked_at: null });
    expect((await fetch(url.replace(/^https?:\/\/[^/]+/, app.url))).status).toBe(200);
    await open('/shares');
    await page.waitForSelector(`td a:has-text("${SESSION}")`);
    await check('shares');
    await confirm(`Revoke the link to session ${SESSION}`, 'Revoke');
    await page.waitForSelector('tbody td:has-text("revoked")');
    expect(
      ((await get('/api/v1/shares')) as { id: string; revoked_at: string | null }[]).find((s) => s.id === share.id)
        ?.revoked_at,
    ).toEqual(expect.any(String));
    expect((await fetch(url.replace(/^https?:\/\/[^/]+/, app.url))).status).not.toBe(200);
  }, 60_000);
}
