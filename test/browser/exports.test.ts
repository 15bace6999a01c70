import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import type { FakeUpstream } from '../helpers/fake-upstream';
import { waitUntil } from '../integration/webhooks/fixtures';
import { dismissToasts, review } from './ui';
import { openSignedIn, startWithOpenAI, stopAll } from './stack';

interface ExportRecord {
  id: string;
  resource: string;
  format: string;
  filter: Record<string, unknown>;
  status: string;
  rows_written: number;
}

/**
 * "Export" on the lists, in a real browser against the real service (API and worker): the
 * requests, traces, sessions and dataset items lists each start an export with the filter the
 * list shows (from its URL), the dialog follows it to the end, and the file behind its Download
 * button holds exactly the rows the list filter matches.
 */
describe('exports from the lists in a browser', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let browser: Browser;
  let page: Page;
  let t: SeededTenant;
  const errors: string[] = [];

  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const get = async (path: string) => (await api(app, 'GET', path, as())).body.data;
  const exports = async () => (await get('/api/v1/exports')) as ExportRecord[];
  const call = (model: string, session: string) =>
    new OpenAI({
      apiKey: t.fullKey,
      baseURL: `${app.url}/proxy/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-service-session-id': session },
    }).chat.completions.create({ model, messages: [{ role: 'user', content: `hello ${model}` }] });
  const quiet = () => dismissToasts(page);

  /** Opens the list's Export dialog, checks the filter it shows, exports, and returns the downloaded file's text. */
  async function exportFrom(path: string, format: 'CSV' | 'JSON Lines' | 'Parquet', filterText: RegExp, shot?: string) {
    await page.goto(`${app.url}${path}`);
    await page.getByRole('button', { name: 'Export' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByTestId('export-filter').textContent()).toMatch(filterText);
    await dialog.getByText(format, { exact: true }).click();
    await dialog.getByRole('button', { name: 'Start export' }).click();
    const download = dialog.getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 60_000 });
    await dialog.getByTestId('export-progress').getByText('completed').waitFor();
    if (shot) {
      await quiet();
      expect(await review(page, shot)).toEqual([]);
    }
    const href = (await download.getAttribute('href'))!;
    const res = await fetch(new URL(href, app.url)); // the signed link: no credentials needed
    expect(res.status).toBe(200);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    return {
      text: format === 'Parquet' ? '' : await res.text(),
      bytes: (await res.arrayBuffer().catch(() => new ArrayBuffer(0))).byteLength,
      record: (await exports())[0]!,
    };
  }

  beforeAll(async () => {
    ({ upstream, app, t } = await startWithOpenAI());
    await call('gpt-4o-mini', 'chat-a');
    await call('gpt-4o-mini', 'chat-a');
    await call('gpt-4o', 'chat-b');
    const now = new Date().toISOString();
    await api(app, 'POST', '/ingest/traces', {
      token: t.fullKey,
      body: { id: 'tr-1', name: 'agent run', start_time: now },
    });
    await api(app, 'POST', '/ingest/traces', {
      token: t.fullKey,
      body: { id: 'tr-2', name: 'nightly batch', start_time: now },
    });
    await waitUntil(
      async () => (await get('/api/v1/requests')).length === 3 && (await get('/api/v1/traces')).length === 2,
      15_000,
      'calls and traces stored',
    );
    ({ browser, page } = await openSignedIn(app.url, t.admin.token, errors));
  }, 120_000);
  afterAll(() => stopAll(browser, upstream, app));

  it('exports the requests matching the list’s filter as JSON Lines', async () => {
    const { text, record } = await exportFrom(
      '/requests?model=gpt-4o-mini',
      'JSON Lines',
      /^model=gpt-4o-mini$/,
      'export-requests',
    );
    expect(record).toMatchObject({
      resource: 'requests',
      format: 'jsonl',
      status: 'completed',
      rows_written: 2,
      filter: expect.objectContaining({ model: 'gpt-4o-mini' }),
    });
    const rows = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; model: string });
    const listed = (await get('/api/v1/requests?model=gpt-4o-mini')) as { id: string }[];
    expect(rows.map((r) => r.id).sort()).toEqual(listed.map((r) => r.id).sort());
    expect(new Set(rows.map((r) => r.model))).toEqual(new Set(['gpt-4o-mini']));
  }, 90_000);

  it('exports the traces matching a name as CSV, and the sessions as Parquet', async () => {
    const traces = await exportFrom('/traces?name=agent%20run', 'CSV', /^name=agent run$/);
    expect(traces.record).toMatchObject({
      resource: 'traces',
      format: 'csv',
      rows_written: 1,
      filter: { name: 'agent run' },
    });
    const [header, ...lines] = traces.text.trim().split('\n');
    expect(header).toMatch(/^id,/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tr-1,/);

    const sessions = await exportFrom('/sessions', 'Parquet', /^every row$/);
    expect(sessions.record).toMatchObject({
      resource: 'sessions',
      format: 'parquet',
      status: 'completed',
      rows_written: 2,
    });
  }, 90_000);

  it('exports a dataset’s items at the version on screen', async () => {
    const id = (await api(app, 'POST', '/api/v1/datasets', { ...as(), body: { project_id: t.projectId, name: 'd' } }))
      .body.data.id as string;
    await api(app, 'POST', `/api/v1/datasets/${id}/items`, { ...as(), body: { items: [{ id: 'a', input: 'x' }] } });
    const first = (await get(`/api/v1/datasets/${id}/versions`))[0].version as string;
    await api(app, 'POST', `/api/v1/datasets/${id}/items`, { ...as(), body: { items: [{ id: 'b', input: 'y' }] } });
    const { text, record } = await exportFrom(
      `/datasets/${id}?version=${encodeURIComponent(first)}`,
      'JSON Lines',
      new RegExp(`^dataset_id=${id} · version=`),
    );
    expect(record).toMatchObject({
      resource: 'dataset_items',
      rows_written: 1,
      filter: expect.objectContaining({ dataset_id: id, version: first }),
    });
    expect(
      text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['a']);
    expect(errors).toEqual([]);
  }, 90_000);
});
