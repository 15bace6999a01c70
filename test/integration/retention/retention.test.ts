import { randomBytes, randomUUID } from 'node:crypto';
import { migrationSource } from '../../../migrations';
import { createDatabase, dropDatabase, withDatabase } from '../../../src/db/admin';
import { createDb } from '../../../src/db/knex';
import { createPartition, listPartitions } from '../../../src/retention/queries';
import { runRetention } from '../../../src/retention/run';
import { scheduleId } from '../../../src/temporal/schedules';
import { retentionWorkflow } from '../../../workflows';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { TEST_PG_URL } from '../../helpers/env';
import { requestRow, writeRows } from '../analytics/seed';

const NOW = Date.parse('2026-09-15T12:00:00Z');

describe('request log partitions and retention', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  it('the migration moves existing rows into monthly partitions, unchanged', async () => {
    const name = `gw_mig_${randomBytes(5).toString('hex')}`;
    await createDatabase(TEST_PG_URL, name);
    const db = createDb(withDatabase(TEST_PG_URL, name), 2);
    try {
      const cfg = { migrationSource } as never;
      for (;;) {
        const [, applied] = (await db.migrate.up(cfg)) as [number, string[]];
        if (String(applied).includes('008_anomalies')) break;
      }
      const [user] = await db('users')
        .insert({ sub: `s-${randomUUID()}` })
        .returning('id');
      const [org] = await db('organizations').insert({ name: 'A', owner_user_id: user.id }).returning('id');
      const [project] = await db('projects').insert({ org_id: org.id, name: 'p' }).returning('id');
      const base = { orgId: org.id as string, projectId: project.id as string };
      const rows = ['2026-01-20', '2026-03-02', '2026-03-30', '2026-06-11'].map((d, i) =>
        requestRow(base, {
          created_at: `${d}T10:00:00.000Z`,
          request_body: `{"n":${i}}`,
          properties: { k: `v${i}` },
          user_id: `u${i}`,
        }),
      );
      await db('requests').insert(rows.map((r) => ({ ...r, properties: JSON.stringify(r.properties) })));
      const before = await db('requests').orderBy('created_at').select('*');
      await db.migrate.latest(cfg);
      const after = await db('requests').orderBy('created_at').select('*');
      expect(after).toEqual(before);
      const parts = (await listPartitions(db)).map((p) => p.name);
      expect(parts).toEqual(
        expect.arrayContaining([
          'requests_default',
          'requests_2026m01',
          'requests_2026m02',
          'requests_2026m03',
          'requests_2026m06',
        ]),
      );
      expect(Number((await db('requests_2026m03').count('* as n'))[0]!.n)).toBe(2);
      expect(Number((await db('requests_default').count('* as n'))[0]!.n)).toBe(0);
    } finally {
      await db.destroy();
      await dropDatabase(TEST_PG_URL, name);
    }
  });

  it('drops whole months past RETENTION_DAYS and nothing younger; empties old bodies; keeps far-off rows', async () => {
    const db = app.database.db;
    const base = { orgId: t.orgId, projectId: t.projectId };
    for (const m of ['2026-05', '2026-06', '2026-07', '2026-08'])
      await createPartition(db, new Date(`${m}-01T00:00:00Z`));
    const at = (d: string, over = {}) =>
      requestRow(base, {
        created_at: `${d}Z`,
        request_body: '{"q":1}',
        response_body: '{"a":1}',
        user_id: 'u',
        ...over,
      });
    const rows = {
      may: at('2026-05-10T10:00:00'),
      june: at('2026-06-30T23:59:59'),
      july: at('2026-07-10T10:00:00'),
      augEarly: at('2026-08-10T10:00:00'),
      augLate: at('2026-08-20T10:00:00'),
      sep: at('2026-09-10T10:00:00'),
      past: at('2001-01-01T00:00:00'),
      future: at('2031-01-01T00:00:00'),
    };
    // September has no partition yet: its row waits in the default one, and moves when the month is created.
    await db.raw('drop table if exists requests_2026m09');
    await writeRows(db, Object.values(rows));
    expect(Number((await db('requests_default').count('* as n'))[0]!.n)).toBe(3);

    const out = await runRetention(db, { retentionDays: 60, bodyRetentionDays: 30 }, NOW);
    // Cutoff 2026-07-17: May and June are wholly older; July straddles it and stays.
    expect(out.dropped.sort()).toEqual(['requests_2026m05', 'requests_2026m06']);
    expect(out.created).toEqual(expect.arrayContaining(['2026-09', '2026-10']));
    const left = await db('requests')
      .where({ project_id: t.projectId })
      .orderBy('created_at')
      .select('id', 'request_body', 'response_body');
    expect(left.map((r) => r.id)).toEqual([
      rows.july.id,
      rows.augEarly.id,
      rows.augLate.id,
      rows.sep.id,
      rows.future.id,
    ]);
    // Bodies before 2026-08-16 emptied, later ones kept.
    const body = Object.fromEntries(left.map((r) => [r.id, r.request_body + r.response_body]));
    expect(body[rows.july.id]).toBe('');
    expect(body[rows.augEarly.id]).toBe('');
    expect(body[rows.augLate.id]).toBe('{"q":1}{"a":1}');
    expect(Number((await db('requests_2026m09').count('* as n'))[0]!.n)).toBe(1);
    // Rollups of the dropped months go too (July's stays with its row).
    const buckets = (
      await db('request_rollups').where({ project_id: t.projectId, dim: '' }).orderBy('bucket').pluck('bucket')
    ).map((b: Date) => b.toISOString().slice(0, 10));
    expect(buckets).toEqual(['2026-07-10', '2026-08-10', '2026-08-20', '2026-09-10', '2031-01-01']);
    // A far-future row is readable like any other.
    const r = await api(app, 'GET', `/api/v1/requests/${rows.future.id}`, { token: t.fullKey });
    expect(r.status).toBe(200);

    // Running again changes nothing.
    const again = await runRetention(db, { retentionDays: 60, bodyRetentionDays: 30 }, NOW);
    expect(again).toMatchObject({ created: [], dropped: [], bodiesEmptied: 0 });
  });

  it('the worker keeps the daily schedule, and the workflow runs the upkeep', async () => {
    const d = await app.runtime.ctx.temporal.client.schedule
      .getHandle(scheduleId(app.config.TEMPORAL_TASK_QUEUE, 'retention'))
      .describe();
    expect(d.spec.calendars).toEqual([
      expect.objectContaining({ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 17, end: 17, step: 1 }] }),
    ]);
    expect(d.action).toMatchObject({ workflowType: 'retentionWorkflow' });
    const out = await app.runtime.ctx.temporal.client.workflow.execute(retentionWorkflow, {
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      workflowId: `retention-${randomUUID()}`,
      args: ['2027-06-15T00:00:00Z'],
    });
    // No RETENTION_DAYS in the tests' settings: months are created, nothing is dropped.
    expect(out.created).toEqual(expect.arrayContaining(['2027-06', '2027-09']));
    expect(out.dropped).toEqual([]);
  });
});
