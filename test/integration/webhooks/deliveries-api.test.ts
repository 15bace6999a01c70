import { emitEvent } from '../../../src/events/outbox';
import { deliveryWorkflowId, redeliveryWorkflowId } from '../../../src/webhooks/policy';
import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import type { HttpsReceiver } from '../../helpers/https-receiver';
import { startApiBed, stopApiBed, type ApiBed } from './api-bed';
import { seedFinishedDeliveries, waitUntil } from './fixtures';

/** The webhook_deliveries columns these tests wait on. */
interface DeliveryRow {
  status: string;
  attempt_count: number;
  next_retry_at: Date | null;
  stop_reason: string | null;
}
/** One attempt of a delivery's detail (GET .../deliveries/:id). */
interface Attempt {
  number: number;
  source: string;
  redelivery: number | null;
  http_status: number | null;
}

/**
 * GET …/deliveries/:deliveryId (attempt history) and POST …/redeliver on the real service and the suite's Temporal dev
 * server. The role matrix is in deliveries-matrix.test.ts.
 */
describe('webhook delivery detail and redeliver', () => {
  let bed: ApiBed;
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  const as = (who: 'admin' | 'editor' | 'viewer') => ({ token: t[who].token, orgId: t.orgId });
  const db = () => app.runtime.ctx.db;
  const temporal = () => app.runtime.ctx.temporal.client;

  beforeAll(async () => {
    bed = await startApiBed('all');
    ({ app, receiver, t } = bed);
  });
  afterAll(() => stopApiBed(bed));
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.handle((_r, res) => void res.end('ok'));
  });

  const createHook = async (path: string, tenant = t) =>
    (
      await api(app, 'POST', '/api/v1/webhooks', {
        token: tenant.admin.token,
        orgId: tenant.orgId,
        body: { name: path, url: `${receiver.url}${path}`, events: ['trace.completed'] },
      })
    ).body.data as { id: string; secret: string };
  /** Requests the receiver got on `path` (each test's webhook has its own). */
  const at = (path: string, count: number) =>
    waitUntil(
      async () => {
        const got = receiver.requests.filter((r) => r.path === path);
        return got.length >= count ? got : undefined;
      },
      20_000,
      `${count} requests on ${path}`,
    );
  const emit = async (path: string) => {
    await emitEvent(db(), t.orgId, 'trace.completed', {
      trace: { id: 'tr-1', status: 'completed', ended_at: '2026-01-01T00:00:00.000Z', duration_ms: 5 },
    });
    const [req] = await at(path, 1);
    return req!.headers['x-service-delivery-id'] as string;
  };
  const record = (id: string, pred: (r: DeliveryRow) => boolean) =>
    waitUntil(
      async () => {
        const r: DeliveryRow | undefined = await db()('webhook_deliveries').where({ id }).first();
        return r && pred(r) ? r : undefined;
      },
      20_000,
      `delivery ${id}`,
    );
  const detail = async (hookId: string, id: string) =>
    (await api(app, 'GET', `/api/v1/webhooks/${hookId}/deliveries/${id}`, as('viewer'))).body.data;
  const redeliver = (hookId: string, id: string, who: 'admin' | 'editor' = 'editor') =>
    api(app, 'POST', `/api/v1/webhooks/${hookId}/deliveries/${id}/redeliver`, as(who));

  it(
    'keeps each attempt: redirect hops, ' +
      'the first 1 KB of the response headers and body; never the signature or the secret',
    async () => {
      const hook = await createHook('/history');
      receiver.handle((req, res) => {
        if (req.path === '/history') return void res.writeHead(307, { location: `${receiver.url}/moved` }).end();
        // Echoes what a careless receiver might: the signature, in a header and in a 2 KB body.
        res.writeHead(500, {
          'x-trace': 'abc',
          'x-echo': req.headers['x-service-signature'] as string,
          'content-type': 'text/plain',
        });
        res.end(`${req.headers['x-service-signature']} ${'b'.repeat(2048)}`);
      });
      const id = await emit('/history');
      await record(id, (r) => r.status === 'failed');
      const d = await detail(hook.id, id);
      expect(d).toMatchObject({
        id,
        status: 'failed',
        http_status: 500,
        attempt_count: 1,
        redeliveries: 0,
        workflow_id: deliveryWorkflowId(id),
      });
      expect(d.attempts).toHaveLength(1);
      const [a] = d.attempts;
      expect(a).toMatchObject({
        number: 1,
        source: 'delivery',
        redelivery: null,
        recovery_id: null,
        http_status: 500,
        error_message: 'HTTP 500',
        response_body_truncated: true,
      });
      expect(a.redirects).toEqual([{ status: 307, location: `${receiver.url}/moved` }]);
      expect(Buffer.byteLength(a.response_body)).toBe(1024);
      expect(a.response_body.startsWith('[redacted] bbb')).toBe(true);
      expect(a.response_headers).toContain('x-trace: abc');
      expect(a.response_headers).toContain('x-echo: [redacted]');
      expect(typeof a.duration_ms).toBe('number');
      expect(new Date(a.started_at).toISOString()).toBe(a.started_at);

      const digest = (receiver.requests[0]!.headers['x-service-signature'] as string).slice('sha256='.length);
      const stored = JSON.stringify(await db()('webhook_delivery_attempts').where({ delivery_id: id }));
      expect(stored).not.toContain(digest);
      expect(stored).not.toContain(hook.secret);
      // Nor in the workflow's history: only the outcome's four fields go back to the workflow.
      const history = JSON.stringify(await temporal().workflow.getHandle(deliveryWorkflowId(id)).fetchHistory());
      expect(history).not.toContain(digest);
      await api(app, 'PATCH', `/api/v1/webhooks/${hook.id}`, { ...as('admin'), body: { is_active: false } });

      // The test delivery is in the history as well.
      const test = (await api(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, as('editor'))).body.data;
      expect((await detail(hook.id, test.delivery_id)).attempts).toEqual([
        expect.objectContaining({ number: 1, source: 'test', http_status: 500 }),
      ]);
    },
  );

  it(
    'redelivers the identical bytes, delivery id, ' +
      'timestamp and signature as run 1; attempt numbers continue; audited',
    async () => {
      const hook = await createHook('/again');
      const id = await emit('/again');
      await record(id, (r) => r.status === 'delivered');
      // The record says delivered a moment before run 1's workflow completes (a redeliver then is a 409).
      await temporal().workflow.getHandle(deliveryWorkflowId(id)).result();
      const res = await redeliver(hook.id, id);
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({
        delivery_id: id,
        redelivery: 1,
        workflow_id: redeliveryWorkflowId(id, 1),
        first_attempt: 2,
      });
      const [first, second] = await at('/again', 2);
      expect(second!.raw.equals(first!.raw)).toBe(true);
      for (const h of ['x-service-delivery-id', 'x-service-signature', 'content-type'])
        expect(second!.headers[h]).toBe(first!.headers[h]);
      expect(JSON.parse(second!.raw.toString()).timestamp).toBe(JSON.parse(first!.raw.toString()).timestamp);

      await record(id, (r) => r.status === 'delivered' && r.attempt_count === 2);
      const d = await detail(hook.id, id);
      expect(d).toMatchObject({
        status: 'delivered',
        attempt_count: 2,
        redeliveries: 1,
        workflow_id: redeliveryWorkflowId(id, 1),
        dlq_at: null,
      });
      expect(d.attempts.map((a: Attempt) => [a.number, a.source, a.redelivery, a.http_status])).toEqual([
        [1, 'delivery', null, 200],
        [2, 'redelivery', 1, 200],
      ]);
      await waitUntil(
        async () =>
          (await temporal().workflow.getHandle(redeliveryWorkflowId(id, 1)).describe()).status.name === 'COMPLETED',
      );
      const audit = await db()('audit_logs').where({ resource_id: id, action: 'webhook_delivery.redelivered' });
      expect(audit).toHaveLength(1);
      expect(audit[0].after).toMatchObject({
        webhook_id: hook.id,
        redelivery: 1,
        workflow_id: redeliveryWorkflowId(id, 1),
      });
      expect((await redeliver(hook.id, id, 'admin')).body.data).toMatchObject({ redelivery: 2, first_attempt: 3 });
      await at('/again', 3);
      await api(app, 'DELETE', `/api/v1/webhooks/${hook.id}`, as('admin'));
    },
  );

  it(
    'never runs two workflows of one delivery: 409 while one runs; ' +
      'concurrent redelivers start one run; paused webhooks included',
    async () => {
      receiver.handle((_r, res) => void res.writeHead(503).end());
      const hook = await createHook('/busy');
      const id = await emit('/busy');
      await record(id, (r) => r.status === 'failed');
      const busy = await redeliver(hook.id, id);
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({
        success: false,
        code: 'delivery_in_progress',
        workflow_id: deliveryWorkflowId(id),
      });

      // Pausing stops the retries; a redelivery is an explicit action and runs on the paused webhook.
      await api(app, 'PATCH', `/api/v1/webhooks/${hook.id}`, { ...as('admin'), body: { is_active: false } });
      await record(id, (r) => r.status === 'cancelled');
      await waitUntil(
        async () =>
          (await temporal().workflow.getHandle(deliveryWorkflowId(id)).describe()).status.name === 'CANCELLED',
      );
      const tries = await Promise.all(Array.from({ length: 5 }, () => redeliver(hook.id, id)));
      expect(tries.map((r) => r.status).sort()).toEqual([202, 409, 409, 409, 409]);
      for (const r of tries.filter((x) => x.status === 409)) expect(r.body.code).toBe('delivery_in_progress');
      await at('/busy', 2);
      const failed = await record(id, (r) => r.status === 'failed' && r.attempt_count === 2);
      expect(failed.next_retry_at).not.toBeNull();
      const desc = await temporal().workflow.getHandle(redeliveryWorkflowId(id, 1)).describe();
      expect(desc.status.name).toBe('RUNNING');

      // Deleting the webhook cancels the running redelivery run.
      await api(app, 'DELETE', `/api/v1/webhooks/${hook.id}`, as('admin'));
      expect((await record(id, (r) => r.status === 'cancelled')).stop_reason).toBe('webhook_deleted');
      expect(receiver.requests.filter((r) => r.path === '/busy')).toHaveLength(2);
    },
  );

  it('answers 404 for unknown and malformed ids and another webhook’s delivery', async () => {
    const a = await createHook('/a');
    const b = await createHook('/b');
    const [d] = await seedFinishedDeliveries(db(), a.id, t.orgId, 1);
    for (const path of [
      `${b.id}/deliveries/${d!.id}`,
      `${a.id}/deliveries/00000000-0000-4000-8000-000000000000`,
      `${a.id}/deliveries/nope`,
      `nope/deliveries/${d!.id}`,
    ]) {
      for (const [method, suffix] of [
        ['GET', ''],
        ['POST', '/redeliver'],
      ] as const) {
        const r = await api(app, method, `/api/v1/webhooks/${path}${suffix}`, as('admin'));
        expect([path, suffix, r.status, r.body.success]).toEqual([path, suffix, 404, false]);
      }
    }
  });
});
