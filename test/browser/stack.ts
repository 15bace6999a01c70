import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { api, seedTenant, type SeededTenant } from '../helpers/auth';
import { findChromium } from '../helpers/browser-path';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { DESKTOP, SHOTS } from './ui';

/**
 * What the dashboard's browser tests share: the whole service (`all` role) with a fake OpenAI
 * upstream, a seeded tenant whose project has an OpenAI key, and a signed-in headless chromium.
 * `env` adds settings of the service (e.g. TEMPORAL_UI_URL for workflow links).
 */
export async function startWithOpenAI(
  env: Record<string, string> = {},
): Promise<{ upstream: FakeUpstream; app: TestApp; t: SeededTenant }> {
  const upstream = await startFakeUpstream();
  const app = await startTestApp({ role: 'all', env: { ...env, PROVIDER_OPENAI_BASE_URL: upstream.url } });
  const t = await seedTenant(app);
  const body = { project_id: t.projectId, provider: 'openai', api_key: 'sk-openai-0123456789' };
  await api(app, 'PUT', '/api/v1/provider-keys', { token: t.admin.token, orgId: t.orgId, body });
  return { upstream, app, t };
}

/** Chromium at desktop size, signed in with `token`; page errors are collected into `errors`. */
export async function openSignedIn(
  url: string,
  token: string,
  errors: string[],
): Promise<{ browser: Browser; page: Page }> {
  const exe = findChromium();
  if (!exe) throw new Error('chromium missing: run `npm run browser:install`');
  await mkdir(SHOTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const page = await browser.newPage({ viewport: DESKTOP });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}/#dev_token=${token}`);
  await page.waitForSelector('main h1');
  return { browser, page };
}

/** Closes what a test started, whichever parts of it did start. */
export async function stopAll(browser?: Browser, upstream?: FakeUpstream, app?: TestApp): Promise<void> {
  await browser?.close();
  await upstream?.close();
  await app?.stop();
}
