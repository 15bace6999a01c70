import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { end, ExportStopped, fileKey, finalize, writePart, type ExportRunDeps } from '../../../src/exports/run';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from '../analytics/seed';
import { waitUntil } from '../webhooks/fixtures';

const ROWS = 6000;

/**
 * A cancelled export does not change afterwards: the part being written stops adding progress
 * and leaves no file; a file joined while the cancel lands is removed, not completed; and a late
 * cancel of an export that completed meanwhile leaves its file. The last two are drilled on the
 * export's own functions, the cancel held as an uncommitted update of its row.
 */
describe('exports: cancel races', () => {
  let app: TestApp;
  let t: SeededTenant;
  let dir: string;
  let deps: ExportRunDeps;
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });
  const get = async (id: string) => (await api(app, 'GET', `/api/v1/exports/${id}`, ed())).body.data;
  const filesOf = async (id: string) => readdir(path.join(dir, id)).catch(() => [] as string[]);
  /** An export row as the api records it, running, of the few `gpt-4o` rows. */
  const running = async () => {
    const id = randomUUID();
    await app.database.db('exports').insert({
      id,
      org_id: t.orgId,
      project_ids: [t.projectId],
      resource: 'requests',
      format: 'csv',
      filter: JSON.stringify({ model: 'gpt-4o' }),
      columns: ['id', 'model'],
      status: 'running',
      workflow_id: `export-${id}`,
      link_key: randomBytes(32).toString('base64url'),
    });
    expect(await writePart(deps, id, 0, null, 0, () => undefined)).toEqual({ cursor: null, rows: 3 });
    return id;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'exports-cancel-'));
    app = await startTestApp({ role: 'all', env: { EXPORT_DIR: dir } });
    t = await seedTenant(app);
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(2000) }] });
    const base = Date.parse('2026-10-01T00:00:00Z');
    await writeRows(
      app.database.db,
      Array.from({ length: ROWS }, (_, i) =>
        requestRow(
          { orgId: t.orgId, projectId: t.projectId },
          {
            created_at: new Date(base + i * 1000).toISOString(),
            log_mode: 'full',
            request_body: body,
            model: i < 3 ? 'gpt-4o' : 'gpt-4o-mini',
          },
        ),
      ),
      { fold: false },
    );
    const { ctx } = app.runtime;
    deps = { db: app.database.db, store: ctx.exportStore, logger: ctx.logger, ttlHours: 1, partRows: 1000 };
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('cancelled mid-part: no more progress, no parts, no files', async () => {
    const id = (
      await api(app, 'POST', '/api/v1/exports', {
        ...ed(),
        body: { resource: 'requests', format: 'csv', include_bodies: true },
      })
    ).body.data.id as string;
    await waitUntil(async () => (await get(id)).rows_written > 0, 30_000, 'first rows');
    const c = (await api(app, 'POST', `/api/v1/exports/${id}/cancel`, ed())).body.data;
    expect(c.status).toBe('cancelled');
    expect(c.rows_written).toBeLessThan(ROWS);
    const handle = app.runtime.ctx.temporal.client.workflow.getHandle(`export-${id}`);
    await waitUntil(async () => (await handle.describe()).status.name === 'CANCELLED', 15_000, 'workflow cancelled');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await get(id)).toEqual(c);
    expect((await app.database.db('exports').where({ id }).first()).parts).toBe(0);
    expect(await filesOf(id)).toEqual([]);
  }, 30_000);

  it('a file joined while the cancel lands is removed, and the export stays cancelled', async () => {
    const id = await running();
    const cancel = await app.database.db.transaction();
    try {
      await cancel('exports').where({ id }).update({ status: 'cancelled' });
      const joining = finalize(deps, id, 1, () => undefined).then(
        () => 'completed',
        (err: unknown) => err,
      );
      // finalize writes the file, then waits for the row the cancel holds.
      await waitUntil(async () => (await filesOf(id)).includes('export.csv'), 10_000, 'the file written');
      await waitUntil(
        async () =>
          Number(
            (
              await app.database.db.raw(
                `select count(*) as n from pg_stat_activity
                  where datname = current_database() and wait_event_type = 'Lock'`,
              )
            ).rows[0].n,
          ) > 0,
        10_000,
        'finalize to wait for the row',
      );
      await cancel.commit();
      expect(await joining).toBeInstanceOf(ExportStopped);
    } finally {
      if (!cancel.isCompleted()) await cancel.rollback();
    }
    expect((await app.database.db('exports').where({ id }).first()).status).toBe('cancelled');
    expect(await filesOf(id)).not.toContain('export.csv');
  }, 30_000);

  it('a late cancel of an export that completed meanwhile leaves its file', async () => {
    const id = await running();
    await finalize(deps, id, 1, () => undefined);
    await end(deps, id, 'cancelled');
    expect((await app.database.db('exports').where({ id }).first()).status).toBe('completed');
    expect(await deps.store.size(fileKey(id, 'csv'))).toBeGreaterThan(0);
  });
});
