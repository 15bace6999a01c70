import { startTestApp, type TestApp } from '../../helpers/app';
import { seedTenant, type SeededTenant } from '../../helpers/auth';
import { jsonIngestCalls } from './helpers';

/** The SDK wire format's batch endpoint: operations in order, per-item results, envelope limits, replays. */
describe('JSON ingest /ingest/*', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  const { uid, post, getTrace, iso, counts } = jsonIngestCalls(() => ({ app, t }));

  describe('batch', () => {
    it('applies operations in order with per-item results: 200 when all succeed', async () => {
      const traceId = uid('tr');
      const spanId = uid('sp');
      const now = Date.now();
      const r = await post('/ingest/batch', {
        operations: [
          { op: 'trace.create', id: traceId, body: { name: 'batched', start_time: iso(now) } },
          {
            op: 'span.create',
            id: spanId,
            body: { trace_id: traceId, name: 'step', span_type: 'chain', start_time: iso(now + 1) },
          },
          { op: 'span.update', id: spanId, body: { end_time: iso(now + 5), status: 'ok' } },
          { op: 'span.update', id: spanId, body: { output: 'out' } },
          { op: 'trace.update', id: traceId, body: { end_time: iso(now + 10), status: 'completed' } },
          { op: 'trace.create', id: traceId, body: { name: 'replayed', start_time: iso(now) } },
        ],
      });
      expect(r.status).toBe(200);
      expect(r.body.data.results.map((x: { index: number; status: number }) => [x.index, x.status])).toEqual([
        [0, 201],
        [1, 201],
        [2, 200],
        [3, 200],
        [4, 200],
        [5, 200],
      ]);
      expect(r.body.data.results[5]).toMatchObject({ id: traceId, created: false });
      const tr = await getTrace(traceId);
      expect(tr).toMatchObject({ name: 'batched', status: 'completed', duration_ms: 10 });
      expect(tr.spans[0]).toMatchObject({ status: 'ok', output: 'out', duration_ms: 4 });
    });

    it('answers 207 with the failing items named, and stores the others', async () => {
      const traceId = uid('tr');
      const r = await post('/ingest/batch', {
        operations: [
          { op: 'trace.create', id: traceId, body: { name: 'ok', start_time: iso(Date.now()) } },
          { op: 'span.create', id: uid('sp'), body: { name: 'no trace id', start_time: iso(Date.now()) } },
          { op: 'span.destroy', id: 'x', body: {} },
          'not an object',
          { op: 'span.update', id: uid('sp'), body: { output: 'y'.repeat(2 * 1024 * 1024) } },
          { op: 'trace.create', id: uid('tr'), body: { id: 'other-id', name: 'x', start_time: iso(Date.now()) } },
          { op: 'span.create', id: uid('sp'), body: { trace_id: traceId, name: 'fine', start_time: iso(Date.now()) } },
        ],
      });
      expect(r.status).toBe(207);
      const res = r.body.data.results;
      expect(res.map((x: { status: number }) => x.status)).toEqual([201, 400, 400, 400, 413, 400, 201]);
      expect(res[1].error).toMatch(/operations\[1\]\.body\.trace_id/);
      expect(res[2].error).toMatch(/operations\[2\]\.op/);
      expect(res[4]).toMatchObject({ code: 'field_too_large' });
      expect(res[5].error).toMatch(/does not match/);
      expect((await getTrace(traceId)).spans).toHaveLength(1);
    });

    it('refuses a malformed envelope as a whole', async () => {
      const before = await counts();
      expect((await post('/ingest/batch', {})).status).toBe(400);
      expect((await post('/ingest/batch', { operations: 'x' })).status).toBe(400);
      expect((await post('/ingest/batch', { operations: [] })).status).toBe(400);
      const tooMany = await post('/ingest/batch', {
        operations: Array.from({ length: 1001 }, (_, i) => ({ op: 'trace.update', id: `t${i}`, body: {} })),
      });
      expect(tooMany.status).toBe(413);
      expect(tooMany.body).toMatchObject({ code: 'too_many_operations', limit: 1000 });
      expect(await counts()).toEqual(before);
    });

    it('takes 1,000 operations in one request', async () => {
      const traceId = uid('tr');
      const now = Date.now();
      const operations = [
        { op: 'trace.create', id: traceId, body: { name: 'big', start_time: iso(now) } },
        ...Array.from({ length: 999 }, (_, i) => ({
          op: 'span.create',
          id: `${traceId}-s${i}`,
          body: { trace_id: traceId, name: `s${i}`, start_time: iso(now), end_time: iso(now + i) },
        })),
      ];
      const r = await post('/ingest/batch', { operations });
      expect(r.status).toBe(200);
      expect(r.body.data.results.filter((x: { status: number }) => x.status === 201)).toHaveLength(1000);
      expect((await getTrace(traceId)).span_count).toBe(999);
      // the same large batch again (a retry): every create is a replay, nothing is duplicated
      const again = await post('/ingest/batch', { operations });
      expect(again.status).toBe(200);
      expect(
        again.body.data.results.every(
          (x: { status: number; created: boolean }) => x.status === 200 && x.created === false,
        ),
      ).toBe(true);
      // a large batch mixing new spans with one that already exists
      const mixed = await post('/ingest/batch', {
        operations: [
          ...Array.from({ length: 60 }, (_, i) => ({
            op: 'span.create',
            id: `${traceId}-new${i}`,
            body: { trace_id: traceId, name: 'n', start_time: iso(now) },
          })),
          { op: 'span.create', id: `${traceId}-s0`, body: { trace_id: traceId, name: 'dup', start_time: iso(now) } },
        ],
      });
      expect(mixed.body.data.results.map((x: { status: number }) => x.status)).toEqual([...Array(60).fill(201), 200]);
      expect((await getTrace(traceId)).span_count).toBe(1059);
    });
  });
});
