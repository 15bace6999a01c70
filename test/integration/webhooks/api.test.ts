import { emitEvent, type EventKind } from '../../../src/events/outbox';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import { signBody, verifySignature } from '../../../src/webhooks/signing';
import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import type { HttpsReceiver } from '../../helpers/https-receiver';
import { startApiBed, stopApiBed, type ApiBed } from './api-bed';
import { waitUntil } from './fixtures';

/**
 * The REST API, the outbox dispatcher and delivery workflows of a real service on the suite's Temporal dev server.
 * Registration and reads, which need no worker, are in registration.test.ts.
 */
describe('/api/v1/webhooks', () => {
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  const as = (who: 'admin' | 'editor' | 'viewer') => ({ token: t[who].token, orgId: t.orgId });
  const db = () => app.runtime.ctx.db;

  let bed: ApiBed | undefined;

  beforeAll(async () => {
    bed = await startApiBed('all');
    ({ app, receiver, t } = bed);
  });
  afterAll(() => stopApiBed(bed));
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.handle((_r, res) => void res.end('ok'));
  });

  const create = (body: Record<string, unknown>, who: 'admin' | 'editor' | 'viewer' = 'admin') =>
    api(app, 'POST', '/api/v1/webhooks', { ...as(who), body });

  describe('test delivery', () => {
    it('sends one signed dummy POST now, records it as event_type test, and answers with the outcome', async () => {
      const created = (await create({ name: 't', url: `${receiver.url}/test`, events: ['alert.triggered'] })).body.data;
      const res = await api(app, 'POST', `/api/v1/webhooks/${created.id}/test`, as('editor'));
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'delivered', http_status: 200, error_message: null });
      expect(typeof res.body.data.duration_ms).toBe('number');

      const [req] = receiver.requests;
      const body = JSON.parse(req!.raw.toString());
      expect(Object.keys(body)).toEqual(['event', 'webhook_id', 'timestamp']);
      expect(body).toMatchObject({ event: 'test', webhook_id: created.id });
      expect(verifySignature(req!.raw, created.secret, req!.headers['x-service-signature'] as string)).toBe(true);
      expect(req!.headers['x-service-delivery-id']).toBe(res.body.data.delivery_id);

      receiver.handle((_r, r) => {
        r.statusCode = 500;
        r.end();
      });
      const failed = await api(app, 'POST', `/api/v1/webhooks/${created.id}/test`, as('admin'));
      expect(failed.status).toBe(200);
      expect(failed.body.data).toMatchObject({ status: 'failed', http_status: 500, error_message: 'HTTP 500' });

      const deliveries = (await api(app, 'GET', `/api/v1/webhooks/${created.id}/deliveries`, as('viewer'))).body.data;
      expect(deliveries.map((d: { event_type: string; status: string }) => [d.event_type, d.status])).toEqual([
        ['test', 'failed'],
        ['test', 'delivered'],
      ]);
      expect(Object.keys(deliveries[0]).sort()).toEqual(
        [
          'id',
          'webhook_id',
          'event_type',
          'status',
          'http_status',
          'error_message',
          'duration_ms',
          'attempt_count',
          'next_retry_at',
          'dlq_at',
          'dlq_reason',
          'delivered_at',
        ].sort(),
      );
      expect(deliveries[0]).toMatchObject({ attempt_count: 1, next_retry_at: null, dlq_at: null, delivered_at: null });
      expect(deliveries[1].delivered_at).toMatch(/Z$/);
      await api(app, 'DELETE', `/api/v1/webhooks/${created.id}`, as('admin'));
    });
  });

  describe('events end to end (outbox → dispatcher → workflow → HTTPS)', () => {
    it(
      'delivers each event once to every active subscribed webhook, ' + 'signed, with the spec headers and body',
      async () => {
        const a = (await create({ name: 'a', url: `${receiver.url}/a`, events: ['trace.completed'] })).body.data;
        const b = (
          await create({ name: 'b', url: `${receiver.url}/b`, events: ['trace.completed', 'request.created'] })
        ).body.data;
        const off = (
          await create({ name: 'off', url: `${receiver.url}/off`, events: ['trace.completed'], is_active: false })
        ).body.data;
        const other = (await create({ name: 'other', url: `${receiver.url}/other`, events: ['alert.triggered'] })).body
          .data;

        const trace = { id: 'tr-1', status: 'completed', ended_at: '2025-01-01T00:00:01.000Z', duration_ms: 1000 };
        await db().transaction((trx) => emitEvent(trx, t.orgId, 'trace.completed', { trace }));
        await receiver.waitFor(2);
        await new Promise((r) => setTimeout(r, 300));
        expect(receiver.requests.map((r) => r.path).sort()).toEqual(['/a', '/b']);

        for (const [hook, req] of [
          [a, receiver.requests.find((r) => r.path === '/a')!],
          [b, receiver.requests.find((r) => r.path === '/b')!],
        ] as const) {
          expect(req.headers['content-type']).toBe('application/json');
          expect(req.headers['x-service-signature']).toBe(signBody(req.raw, hook.secret));
          const body = JSON.parse(req.raw.toString());
          expect(body).toEqual({
            event: 'trace.completed',
            webhook_id: hook.id,
            timestamp: expect.stringMatching(/Z$/),
            trace,
          });
          const id = req.headers['x-service-delivery-id'] as string;
          const rec = await waitUntil(async () => {
            const r = await db()('webhook_deliveries').where({ id }).first();
            return r?.status === 'delivered' ? r : undefined;
          });
          expect(rec).toMatchObject({
            webhook_id: hook.id,
            event_type: 'trace.completed',
            attempt_count: 1,
            http_status: 200,
            workflow_id: deliveryWorkflowId(id),
          });
          expect(rec.body).toBe(req.raw.toString());
          // Findable in Temporal by workflow id, with search attributes and memo for the Web UI.
          const desc = await app.runtime.ctx.temporal.client.workflow.getHandle(deliveryWorkflowId(id)).describe();
          expect(desc.status.name).toBe('COMPLETED');
          expect(await desc.memo).toMatchObject({ deliveryId: id, url: hook.url });
          expect(desc.searchAttributes).toMatchObject({
            WebhookId: [hook.id],
            EventType: ['trace.completed'],
            OrganizationId: [t.orgId],
          });
        }
        expect(await db()('webhook_deliveries').whereIn('webhook_id', [off.id, other.id])).toHaveLength(0);
        expect(await db()('event_outbox')).toHaveLength(0);
        for (const h of [a, b, off, other]) await api(app, 'DELETE', `/api/v1/webhooks/${h.id}`, as('admin'));
      },
    );

    it('writes no outbox row for an event nobody subscribes to, and none when the caller rolls back', async () => {
      const w = (await create({ name: 'r', url: `${receiver.url}/r`, events: ['request.created'] })).body.data;
      await emitEvent(db(), t.orgId, 'alert.triggered', { alert: { id: 'a' }, organization: { name: 'x' } });
      await db()
        .transaction(async (trx) => {
          await emitEvent(trx, t.orgId, 'request.created', { request: { id: 'r1' } });
          throw new Error('rollback');
        })
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
      expect(await db()('webhook_deliveries').where({ webhook_id: w.id })).toHaveLength(0);
      expect(receiver.requests).toHaveLength(0);
      await expect(emitEvent(db(), t.orgId, 'nope' as EventKind, {})).rejects.toThrow(/unknown event kind/);
      await api(app, 'DELETE', `/api/v1/webhooks/${w.id}`, as('admin'));
    });

    it(
      'PATCH is_active:false and DELETE cancel pending retries at once; ' +
        'deliveries list is newest first, 10 at most',
      async () => {
        receiver.handle((_r, res) => {
          res.statusCode = 503;
          res.end();
        });
        const w = (await create({ name: 'pause', url: `${receiver.url}/pause`, events: ['request.created'] })).body
          .data;
        for (let i = 0; i < 12; i++) await emitEvent(db(), t.orgId, 'request.created', { request: { id: `r-${i}` } });
        await receiver.waitFor(12);
        const pending = await waitUntil(async () => {
          const rows = await db()('webhook_deliveries').where({ webhook_id: w.id, status: 'failed' });
          return rows.length === 12 ? rows : undefined;
        });
        expect(
          pending.every(
            (r: { next_retry_at: Date | null; last_attempt_at: Date }) =>
              r.next_retry_at && r.next_retry_at.getTime() - r.last_attempt_at.getTime() >= 60_000,
          ),
        ).toBe(true);

        const list = await api(app, 'GET', `/api/v1/webhooks/${w.id}/deliveries`, as('viewer'));
        expect(list.body.success).toBe(true);
        expect(list.body.data).toHaveLength(10);
        const created = await db()('webhook_deliveries')
          .where({ webhook_id: w.id })
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(10);
        expect(list.body.data.map((d: { id: string }) => d.id)).toEqual(created.map((d: { id: string }) => d.id));
        expect(list.body.data[0]).toMatchObject({
          status: 'failed',
          http_status: 503,
          error_message: 'HTTP 503',
          attempt_count: 1,
          dlq_at: null,
          delivered_at: null,
        });
        expect(list.body.data[0].next_retry_at).toMatch(/Z$/);

        const res = await api(app, 'PATCH', `/api/v1/webhooks/${w.id}`, {
          ...as('editor'),
          body: { is_active: false },
        });
        expect(res.status).toBe(200);
        const stopped = await waitUntil(async () => {
          const rows = await db()('webhook_deliveries').where({ webhook_id: w.id, status: 'cancelled' });
          return rows.length === 12 ? rows : undefined;
        });
        expect(
          stopped.every(
            (r: { stop_reason: string | null; next_retry_at: Date | null }) =>
              r.stop_reason === 'webhook_disabled' && r.next_retry_at === null,
          ),
        ).toBe(true);
        const handle = app.runtime.ctx.temporal.client.workflow.getHandle(deliveryWorkflowId(stopped[0].id));
        await waitUntil(
          async () => (await handle.describe()).status.name === 'CANCELLED',
          10_000,
          'workflow cancelled',
        );

        // Paused: new events are not delivered.
        await emitEvent(db(), t.orgId, 'request.created', { request: { id: 'late' } });
        await new Promise((r) => setTimeout(r, 300));
        expect(await db()('webhook_deliveries').where({ webhook_id: w.id })).toHaveLength(12);
        expect(receiver.requests).toHaveLength(12);

        // Re-enabled, an event fails and retries; DELETE stops it.
        await api(app, 'PATCH', `/api/v1/webhooks/${w.id}`, { ...as('editor'), body: { is_active: true } });
        await emitEvent(db(), t.orgId, 'request.created', { request: { id: 'again' } });
        await receiver.waitFor(13);
        const last = await waitUntil(async () =>
          db()('webhook_deliveries').where({ webhook_id: w.id, status: 'failed' }).first(),
        );
        expect((await api(app, 'DELETE', `/api/v1/webhooks/${w.id}`, as('editor'))).status).toBe(200);
        await waitUntil(
          async () => (await db()('webhook_deliveries').where({ id: last.id }).first())?.status === 'cancelled',
        );
        expect((await db()('webhook_deliveries').where({ id: last.id }).first()).stop_reason).toBe('webhook_deleted');
        expect((await api(app, 'GET', `/api/v1/webhooks/${w.id}`, as('admin'))).status).toBe(404);
      },
    );
  });
});
