import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { killWorkerChild, startWorkerChild } from '../../helpers/worker-child';
import { requestRow, writeRows } from '../analytics/seed';
import { waitUntil } from '../webhooks/fixtures';
import { asWritten, readBack } from './read-back';

// Twelve parts of 1,000 rows each: enough for many parts and a kill between them
// (the 50,000-row scale is bench:exports' job).
const ROWS = 12_000;

/**
 * Exports: 12,000 request rows in each format read back and compared with the API's own pages; a
 * worker SIGKILLed mid-export; cancel; expiry by the cleanup workflow; signed links; the role matrix.
 */
describe('exports', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let worker: ChildProcess | undefined;
  let dir: string;
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });
  const viewer = () => ({ token: t.viewer.token, orgId: t.orgId });
  const start = (body: Record<string, unknown>, who = viewer()) =>
    api(app, 'POST', '/api/v1/exports', { ...who, body });
  const get = async (id: string) => (await api(app, 'GET', `/api/v1/exports/${id}`, ed())).body.data;
  const settled = (id: string, ms = 60_000) =>
    waitUntil(
      async () => ((x) => !['pending', 'running'].includes(x.status) && x)(await get(id)),
      ms,
      `export ${id} to settle`,
    );
  const startWorker = async () => {
    worker = await startWorkerChild({
      DATABASE_URL: app.database.url,
      MASTER_KEY: app.config.MASTER_KEY!,
      AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
      TEMPORAL_TASK_QUEUE: app.config.TEMPORAL_TASK_QUEUE,
      EXPORT_DIR: dir,
      EXPORT_PART_ROWS: '1000',
      LOG_LEVEL: 'silent',
    });
  };
  const download = async (url: string, auth = viewer()) => {
    const r = await fetch(url, { headers: { authorization: `Bearer ${auth.token}`, 'x-organization-id': auth.orgId } });
    return { status: r.status, type: r.headers.get('content-type'), bytes: Buffer.from(await r.arrayBuffer()) };
  };
  const apiRows: Record<string, unknown>[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'exports-'));
    app = await startTestApp({ role: 'api', env: { EXPORT_DIR: dir } });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    const base = Date.parse('2026-11-01T00:00:00Z');
    const rows = Array.from({ length: ROWS }, (_, i) =>
      requestRow(
        { orgId: t.orgId, projectId: t.projectId },
        {
          created_at: new Date(base + Math.floor(i / 3) * 1000).toISOString(), // ties on created_at: the id breaks them
          model: i % 2 ? 'gpt-4o-mini' : 'claude-3-5-haiku',
          user_id: i % 7 ? `user-${i % 50}` : null,
          properties: i % 5 ? null : { team: 'a,"b"\nc', n: String(i) },
          error: i % 11 ? null : 'upstream said "no", then\nclosed',
          log_mode: i % 13 ? 'meta' : 'full',
          request_body: i % 13 ? '' : JSON.stringify({ messages: [{ role: 'user', content: `q ${i}, "quoted"` }] }),
          cost_usd: i % 9 ? 0.000123 * (i % 100) : null,
        },
      ),
    );
    await writeRows(app.database.db, rows, { fold: false });
    for (let cursor: string | null = null; ;) {
      const page: { body: { data: Record<string, unknown>[]; next_cursor?: unknown } } = await api(
        app,
        'GET',
        `/api/v1/requests?limit=200&include_bodies=true${cursor ? `&cursor=${cursor}` : ''}`,
        viewer(),
      );
      apiRows.push(...page.body.data);
      cursor = page.body.next_cursor as string | null;
      if (!cursor) break;
    }
    await startWorker();
  }, 240_000);
  afterAll(async () => {
    if (worker) await killWorkerChild(worker, 'SIGKILL').catch(() => undefined);
    await app?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['csv', 'jsonl', 'parquet'])(
    'writes all %s rows, equal to the API’s, with bodies as stored',
    async (format) => {
      const r = await start({ resource: 'requests', format, include_bodies: true });
      expect(r.status).toBe(202);
      const done = await settled(r.body.data.id, 120_000);
      expect(done).toMatchObject({
        status: 'completed',
        rows_written: ROWS,
        estimated_total: ROWS,
        progress: 1,
        download_url: expect.any(String),
        signed_url: expect.any(String),
      });
      const wf = await app.runtime.ctx.temporal.client.workflow.getHandle(`export-${r.body.data.id}`).describe();
      expect(await wf.staticSummary()).toBe(`export requests → ${format} with bodies`); // the Web UI's list line
      const file = await download(done.download_url);
      expect(file.status).toBe(200);
      expect(file.bytes.length).toBe(done.bytes);
      const local = path.join(dir, 'check.' + format);
      await writeFile(local, file.bytes);
      const back = await readBack(format, file.bytes, local);
      expect(back).toHaveLength(ROWS);
      // Row by row: a mismatch names its row instead of diffing 12,000 objects.
      const want = apiRows.map((row) => asWritten(format, row, done.columns));
      const bad = back.findIndex((row, i) => JSON.stringify(row) !== JSON.stringify(want[i]));
      const diff = (a: Record<string, unknown>, b: Record<string, unknown>) =>
        [...new Set([...Object.keys(a), ...Object.keys(b)])]
          .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
          .map((k) => ({ k, got: a[k], want: b[k] }));
      expect(bad === -1 ? null : { row: bad, diff: diff(back[bad]!, want[bad]!) }).toBeNull();
    },
    180_000,
  );

  it('survives its worker being killed mid-export: no row twice, none missing', async () => {
    const id = (await start({ resource: 'requests', format: 'jsonl', filter: { model: 'gpt-4o-mini' } })).body.data.id;
    await waitUntil(async () => (await get(id)).rows_written >= 2000, 60_000, 'two parts written');
    await killWorkerChild(worker!, 'SIGKILL');
    const mid = await get(id);
    expect(mid.status).toBe('running');
    await startWorker();
    const done = await settled(id, 120_000);
    expect(done).toMatchObject({ status: 'completed', rows_written: ROWS / 2 });
    const lines = (await download(done.download_url)).bytes
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id as string);
    expect(new Set(lines).size).toBe(ROWS / 2);
    expect(lines).toEqual(apiRows.filter((x) => x.model === 'gpt-4o-mini').map((x) => x.id));
  }, 240_000);

  it('cancels: the workflow stops, parts are removed, the record says cancelled', async () => {
    const id = (await start({ resource: 'requests', format: 'csv', include_bodies: true }, ed())).body.data.id;
    await waitUntil(async () => (await get(id)).rows_written > 0, 60_000, 'first rows');
    // not the viewer's export
    expect((await api(app, 'POST', `/api/v1/exports/${id}/cancel`, viewer())).status).toBe(403);
    const c = await api(app, 'POST', `/api/v1/exports/${id}/cancel`, ed());
    expect(c.body.data.status).toBe('cancelled');
    const handle = app.runtime.ctx.temporal.client.workflow.getHandle(`export-${id}`);
    await waitUntil(async () => (await handle.describe()).status.name === 'CANCELLED', 30_000, 'workflow cancelled');
    await waitUntil(async () => !(await readdir(dir)).includes(id), 10_000, 'parts removed');
    expect((await get(id)).status).toBe('cancelled');
    expect((await api(app, 'GET', `/api/v1/exports/${id}/download`, ed())).body.code).toBe('export_not_ready');
  }, 120_000);

  it(
    'signed links need no credentials, and fail when tampered ' + 'with or late; the cleanup schedule expires files',
    async () => {
      const id = (
        await start({
          resource: 'requests',
          format: 'csv',
          filter: { user_id: 'user-1' },
          columns: ['id', 'user_id', 'properties'],
        })
      ).body.data.id;
      const done = await settled(id);
      const signed = await fetch(done.signed_url);
      expect(signed.status).toBe(200);
      expect(signed.headers.get('content-disposition')).toContain(`requests-${id}.csv`);
      expect((await signed.text()).split('\n')[0]).toBe('id,user_id,properties');
      // Flip the signature's first character to a different one (replacing it with a fixed letter
      // left the link intact whenever the signature already began with that letter).
      const tampered = done.signed_url.replace(
        /signature=(.)/,
        (_m: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`,
      );
      expect(tampered).not.toBe(done.signed_url);
      expect((await fetch(tampered)).status).toBe(404);
      const exp = Math.floor(Date.now() / 1000) - 10;
      const late = done.signed_url.replace(/expires=\d+/, `expires=${exp}`);
      expect((await fetch(late)).status).toBe(404); // the signature covers the expiry
      await app.database
        .db('exports')
        .where({ id })
        .update({ expires_at: new Date(Date.now() - 1000) });
      await app.runtime.ctx.temporal.client.workflow.execute('exportCleanupWorkflow', {
        taskQueue: app.config.TEMPORAL_TASK_QUEUE,
        workflowId: `cleanup-${randomUUID()}`,
      });
      expect((await get(id)).status).toBe('expired');
      expect((await readdir(dir)).includes(id)).toBe(false);
      expect((await api(app, 'GET', `/api/v1/exports/${id}/download`, ed())).status).toBe(410);
    },
    120_000,
  );

  it('refuses bad columns, filters, saved filters of another view and missing datasets with 4xx', async () => {
    expect((await start({ resource: 'requests', format: 'csv', columns: ['id', 'nope'] })).body.code).toBe(
      'unknown_column',
    );
    expect((await start({ resource: 'requests', format: 'csv', columns: ['request_body'] })).body.code).toBe(
      'bodies_not_included',
    );
    expect((await start({ resource: 'traces', format: 'csv', filter: { status: 'weird' } })).body.code).toBe(
      'invalid_filter',
    );
    expect(
      (await start({ resource: 'dataset_items', format: 'jsonl', filter: { dataset_id: randomUUID() } })).status,
    ).toBe(404);
    const saved = (
      await api(app, 'POST', '/api/v1/saved-filters', {
        ...ed(),
        body: { name: 'mini', view: 'requests', filter: { model: 'gpt-4o-mini' } },
      })
    ).body.data.id;
    // the editor's private filter
    expect((await start({ resource: 'requests', format: 'csv', saved_filter_id: saved })).status).toBe(404);
    expect((await start({ resource: 'sessions', format: 'csv', saved_filter_id: saved }, ed())).body.code).toBe(
      'saved_filter_view_mismatch',
    );
    const viaSaved = (
      await start({ resource: 'requests', format: 'jsonl', saved_filter_id: saved, columns: ['id', 'model'] }, ed())
    ).body.data;
    expect(viaSaved.filter).toEqual({ model: 'gpt-4o-mini' });
    expect((await settled(viaSaved.id)).rows_written).toBe(ROWS / 2);
    expect((await start({ resource: 'requests', format: 'xlsx' })).status).toBe(400);
  }, 60_000);

  describe('role matrix', () => {
    let done: string;
    const fresh = async () => (await start({ resource: 'scores', format: 'csv' }, ed())).body.data.id as string;
    beforeAll(async () => {
      done = (await settled(await fresh())).id;
    }, 60_000);
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /exports', method: 'GET', path: () => '/api/v1/exports' },
        {
          name: 'POST /exports',
          method: 'POST',
          path: () => '/api/v1/exports',
          ok: 202,
          body: { resource: 'scores', format: 'jsonl' },
        },
        { name: 'GET /exports/:id', method: 'GET', path: () => `/api/v1/exports/${done}` },
        { name: 'POST /exports/:id/cancel', method: 'POST', path: () => `/api/v1/exports/${done}/cancel`, write: true },
        {
          name: 'DELETE /exports/:id',
          method: 'DELETE',
          path: async () => `/api/v1/exports/${await fresh()}`,
          write: true,
        },
      ],
    );
    it('downloads for every role; never for API keys or another organization', async () => {
      const url = `${app.url}/api/v1/exports/${done}/download`;
      for (const who of [t.admin, t.editor, t.viewer])
        expect((await download(url, { token: who.token, orgId: t.orgId })).status).toBe(200);
      expect((await download(url, { token: t.publicKey, orgId: t.orgId })).status).toBe(403);
      expect((await download(url, { token: t.fullKey, orgId: t.orgId })).status).toBe(403);
      expect((await download(url, { token: other.admin.token, orgId: other.orgId })).status).toBe(404);
      expect((await download(url, { token: 'garbage', orgId: t.orgId })).status).toBe(401);
    });
  });
});
