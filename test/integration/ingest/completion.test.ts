import { createSpanPricer } from '../../../src/ingest/cost';
import { applyUnits } from '../../../src/ingest/store';
import { sweepIdleTraces } from '../../../src/ingest/sweeper';
import type { IngestOp } from '../../../src/ingest/types';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { subscribeTraceCompleted, traceCompletedEvents } from './helpers';

/** trace.completed: emitted once, in the transaction that completes the trace, never twice. */
describe('trace.completed', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    await subscribeTraceCompleted(app, t.orgId);
  });
  afterAll(() => app.stop());

  let n = 0;
  const uid = (p: string) => `${p}-${Date.now().toString(36)}-${n++}`;
  const iso = (ms: number) => new Date(ms).toISOString();
  const post = (path: string, body: unknown) => api(app, 'POST', path, { token: t.fullKey, body });
  const patch = (path: string, body: unknown) => api(app, 'PATCH', path, { token: t.fullKey, body });
  const flag = async (id: string) =>
    (await app.database.db('traces').where({ project_id: t.projectId, id }).first()).completed_event_at as Date | null;

  it(
    'fires when the last open span closes after the trace ' + 'ended, with id, status, ended_at and duration_ms',
    async () => {
      const traceId = uid('tr');
      const t0 = Date.parse('2026-06-01T00:00:00.000Z');
      await post('/ingest/traces', { id: traceId, name: 'x', start_time: iso(t0) });
      await post('/ingest/spans', { id: `${traceId}-a`, trace_id: traceId, name: 'a', start_time: iso(t0) });
      await post('/ingest/spans', { id: `${traceId}-b`, trace_id: traceId, name: 'b', start_time: iso(t0) });
      await patch(`/ingest/traces/${traceId}`, { end_time: iso(t0 + 1500), status: 'completed' });
      await patch(`/ingest/spans/${traceId}-a`, { end_time: iso(t0 + 100) });
      expect(await traceCompletedEvents(app, traceId)).toHaveLength(0); // b still open
      await patch(`/ingest/spans/${traceId}-b`, { output: 'no end yet' });
      expect(await traceCompletedEvents(app, traceId)).toHaveLength(0);
      await patch(`/ingest/spans/${traceId}-b`, { end_time: iso(t0 + 1600), status: 'ok' });
      const events = await traceCompletedEvents(app, traceId);
      expect(events).toEqual([
        { trace: { id: traceId, status: 'completed', ended_at: '2026-06-01T00:00:01.500Z', duration_ms: 1500 } },
      ]);
      expect(await flag(traceId)).toBeInstanceOf(Date);
    },
  );

  it('fires when the trace end arrives after every span closed, and not again on late updates', async () => {
    const traceId = uid('tr');
    const t0 = Date.now();
    await post('/ingest/traces', { id: traceId, name: 'x', start_time: iso(t0) });
    await post('/ingest/spans', {
      id: `${traceId}-a`,
      trace_id: traceId,
      name: 'a',
      start_time: iso(t0),
      end_time: iso(t0 + 5),
    });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(0); // trace not ended
    await patch(`/ingest/traces/${traceId}`, { end_time: iso(t0 + 10), status: 'error' });
    expect((await traceCompletedEvents(app, traceId)).map((e) => e.trace.status)).toEqual(['error']);
    // late updates: status flip, re-sent end, a late closed span, a replayed create
    await patch(`/ingest/traces/${traceId}`, { end_time: iso(t0 + 20), status: 'completed' });
    await post('/ingest/spans', {
      id: `${traceId}-late`,
      trace_id: traceId,
      name: 'late',
      start_time: iso(t0),
      end_time: iso(t0 + 1),
    });
    await post('/ingest/traces', { id: traceId, name: 'x', start_time: iso(t0) });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(1);
  });

  it('needs both end_time and a final status', async () => {
    const traceId = uid('tr');
    const t0 = Date.now();
    await post('/ingest/traces', { id: traceId, name: 'x', start_time: iso(t0) });
    await patch(`/ingest/traces/${traceId}`, { end_time: iso(t0 + 10) });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(0);
    await patch(`/ingest/traces/${traceId}`, { status: 'completed' });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(1);
  });

  it('waits for the create when the end arrived first', async () => {
    const traceId = uid('tr');
    const t0 = Date.now();
    await patch(`/ingest/traces/${traceId}`, { end_time: iso(t0 + 50), status: 'completed' });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(0);
    await post('/ingest/traces', { id: traceId, name: 'x', start_time: iso(t0) });
    expect((await traceCompletedEvents(app, traceId)).map((e) => e.trace.duration_ms)).toEqual([50]);
  });

  it('fires exactly once when span ends and the trace end race from many concurrent requests', async () => {
    const traces = Array.from({ length: 12 }, () => uid('race'));
    const t0 = Date.now();
    await post('/ingest/batch', {
      operations: traces.flatMap((id) => [
        { op: 'trace.create', id, body: { name: 'race', start_time: iso(t0) } },
        ...[0, 1, 2, 3].map((i) => ({
          op: 'span.create',
          id: `${id}-${i}`,
          body: { trace_id: id, name: `s${i}`, start_time: iso(t0) },
        })),
      ]),
    });
    // every close and every trace end in its own request and its own transaction (no group commit),
    // eight transactions at a time, plus a duplicate of each
    const solo = await startTestApp({
      role: 'api',
      database: app.database,
      env: { INGEST_WRITER_MAX_BATCH_OPS: '1', INGEST_WRITER_CONCURRENCY: '8' },
    });
    const patch = (path: string, body: unknown) => api(solo, 'PATCH', path, { token: t.fullKey, body });
    const requests = traces.flatMap((id) => [
      ...[0, 1, 2, 3].flatMap((i) => [
        () => patch(`/ingest/spans/${id}-${i}`, { end_time: iso(t0 + 10 + i) }),
        () => patch(`/ingest/spans/${id}-${i}`, { end_time: iso(t0 + 10 + i) }),
      ]),
      () => patch(`/ingest/traces/${id}`, { end_time: iso(t0 + 100), status: 'completed' }),
      () => patch(`/ingest/traces/${id}`, { end_time: iso(t0 + 100), status: 'completed' }),
    ]);
    requests.sort(() => Math.random() - 0.5);
    const results = await Promise.all(requests.map((r) => r())).finally(() => solo.stop());
    expect(results.every((r) => r.status === 200)).toBe(true);
    for (const id of traces) expect(await traceCompletedEvents(app, id)).toHaveLength(1);
  });

  it(
    'cannot miss the completion when the last span closes ' + 'and the trace ends in overlapping transactions',
    async () => {
      // Transaction A closes the last span and stays open; transaction B ends the trace meanwhile.
      // Without the trace row lock each would see the other's change as not yet committed (write
      // skew) and neither would emit. With it, B waits for A and then sees the closed span.
      const db = app.database.db;
      const traceId = uid('skew');
      const t0 = Date.now();
      await post('/ingest/traces', { id: traceId, name: 'skew', start_time: iso(t0) });
      await post('/ingest/spans', { id: `${traceId}-s`, trace_id: traceId, name: 's', start_time: iso(t0) });
      const unit = (ops: IngestOp[]) => [{ orgId: t.orgId, projectId: t.projectId, source: 'sdk' as const, ops }];
      const price = createSpanPricer();
      const trxA = await db.transaction();
      const a = await applyUnits(
        trxA,
        unit([{ op: 'span.update', id: `${traceId}-s`, fields: { end_time: iso(t0 + 5) } }]),
        price,
      );
      let bDone = false;
      const b = (async () => {
        const trxB = await db.transaction();
        const r = await applyUnits(
          trxB,
          unit([{ op: 'trace.update', id: traceId, fields: { end_time: iso(t0 + 10), status: 'completed' } }]),
          price,
        );
        await trxB.commit();
        bDone = true;
        return r;
      })();
      // until B either finished or waits on a lock
      for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
        if (bDone) break;
        const { rows } = await db.raw(
          'select count(*)::int as n from pg_stat_activity ' +
            "where datname = current_database() and wait_event_type = 'Lock'",
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await trxA.commit();
      const bResult = await b;
      expect(a.completed.length + bResult.completed.length).toBe(1);
      expect(await traceCompletedEvents(app, traceId)).toHaveLength(1);
    },
  );

  it('the sweeper completes ended traces whose spans never close, once', async () => {
    const traceId = uid('tr');
    const t0 = Date.now() - 60_000;
    await post('/ingest/traces', { id: traceId, name: 'stuck', start_time: iso(t0) });
    await post('/ingest/spans', {
      id: `${traceId}-open`,
      trace_id: traceId,
      name: 'never closes',
      start_time: iso(t0),
    });
    await patch(`/ingest/traces/${traceId}`, { end_time: iso(t0 + 1000), status: 'completed' });
    const openTrace = uid('tr');
    await post('/ingest/traces', { id: openTrace, name: 'not ended', start_time: iso(t0) });
    await post('/ingest/spans', { id: `${openTrace}-open`, trace_id: openTrace, name: 'open', start_time: iso(t0) });

    // still active within the idle window: not swept
    expect((await sweepIdleTraces(app.database.db, 3_600_000)).map((c) => c.id)).not.toContain(traceId);
    await new Promise((r) => setTimeout(r, 60));
    const swept = await sweepIdleTraces(app.database.db, 50);
    expect(swept.map((c) => c.id)).toContain(traceId);
    expect(swept.map((c) => c.id)).not.toContain(openTrace);
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(1);
    expect((await sweepIdleTraces(app.database.db, 50)).map((c) => c.id)).not.toContain(traceId);
    // the span closing later does not fire again
    await patch(`/ingest/spans/${traceId}-open`, { end_time: iso(t0 + 2000) });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(1);
  });

  it('writes no outbox row for organizations without a subscribed webhook, but still marks the trace', async () => {
    const other = await seedTenant(app);
    const traceId = uid('tr');
    const t0 = Date.now();
    await api(app, 'POST', '/ingest/traces', {
      token: other.fullKey,
      body: { id: traceId, name: 'x', start_time: iso(t0), end_time: iso(t0 + 1), status: 'completed' },
    });
    expect(await traceCompletedEvents(app, traceId)).toHaveLength(0);
    const row = await app.database.db('traces').where({ project_id: other.projectId, id: traceId }).first();
    expect(row.completed_event_at).toBeInstanceOf(Date);
  });
});
