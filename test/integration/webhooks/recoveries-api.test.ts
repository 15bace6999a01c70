import { recoveryWorkflowId } from '../../../src/webhooks/policy';
import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import type { HttpsReceiver } from '../../helpers/https-receiver';
import { startApiBed, stopApiBed, type ApiBed } from './api-bed';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { seedFinishedDeliveries, seedWebhook, waitUntil } from './fixtures';

/**
 * POST /webhooks/:id/recover and the recoveries' reads and cancel, on the real service and the suite's Temporal dev
 * server.
 */
describe('webhook recoveries', () => {
  let bed: ApiBed;
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let receiver: HttpsReceiver;
  const as = (who: 'admin' | 'editor' | 'viewer') => ({ token: t[who].token, orgId: t.orgId });
  const db = () => app.runtime.ctx.db;
  const hour = 3600_000;

  beforeAll(async () => {
    bed = await startApiBed('all');
    ({ app, receiver, t, other } = bed);
  });
  afterAll(() => stopApiBed(bed));
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.handle((_r, res) => void res.end('ok'));
  });

  const hookAt = (path: string, tenant = t) => seedWebhook(db(), app.config, tenant.orgId, `${receiver.url}${path}`);
  const recover = (hookId: string, body: unknown, who: 'admin' | 'editor' = 'editor') =>
    api(app, 'POST', `/api/v1/webhooks/${hookId}/recover`, { ...as(who), body });
  const get = async (hookId: string, rid: string) =>
    (await api(app, 'GET', `/api/v1/webhooks/${hookId}/recoveries/${rid}`, as('viewer'))).body.data;
  const settled = (hookId: string, rid: string) =>
    waitUntil(
      async () => {
        const r = await get(hookId, rid);
        return r.status !== 'running' ? r : undefined;
      },
      30_000,
      `recovery ${rid}`,
    );
  const idsAt = (path: string) =>
    receiver.requests.filter((r) => r.path === path).map((r) => r.headers['x-service-delivery-id'] as string);

  it(
    'sends every failed and dead-lettered delivery of the window once more, ' +
      'counts the outcomes and records each attempt',
    async () => {
      const hook = await hookAt('/recover');
      const inWindow = new Date(Date.now() - 2 * hour);
      const dead = await seedFinishedDeliveries(db(), hook.id, t.orgId, 30, { createdAt: inWindow });
      const failed = await seedFinishedDeliveries(db(), hook.id, t.orgId, 10, {
        createdAt: inWindow,
        status: 'failed',
      });
      const old = await seedFinishedDeliveries(db(), hook.id, t.orgId, 5, {
        createdAt: new Date(Date.now() - 240 * hour),
      });
      await seedFinishedDeliveries(db(), hook.id, t.orgId, 5, { createdAt: inWindow, status: 'delivered' });
      await seedFinishedDeliveries(db(), hook.id, t.orgId, 2, { createdAt: inWindow, eventType: 'test' });
      const refusing = new Set(dead.slice(0, 3).map((d) => d.id));
      receiver.handle(
        (req, res) =>
          void res.writeHead(refusing.has(req.headers['x-service-delivery-id'] as string) ? 500 : 200).end('ok'),
      );

      const res = await recover(hook.id, { since: new Date(Date.now() - 24 * hour).toISOString() });
      expect(res.status).toBe(202);
      const rid = res.body.data.id;
      expect(res.body.data).toMatchObject({
        webhook_id: hook.id,
        status: 'running',
        statuses: ['failed', 'dead_lettered'],
        workflow_id: recoveryWorkflowId(rid),
        finished_at: null,
      });
      const done = await settled(hook.id, rid);
      expect(done).toMatchObject({
        status: 'completed',
        matched: 40,
        redelivered: 40,
        delivered: 37,
        failed: 3,
        skipped: 0,
        error: null,
      });

      const sent = idsAt('/recover');
      expect(sent.sort()).toEqual([...dead, ...failed].map((d) => d.id).sort());
      const byId = new Map(
        receiver.requests.map((r) => [r.headers['x-service-delivery-id'] as string, r.raw.toString()]),
      );
      expect(byId.get(dead[5]!.id)).toBe(dead[5]!.body);
      const rows = await db()('webhook_deliveries').whereIn('id', sent);
      for (const r of rows) {
        if (refusing.has(r.id))
          expect(r).toMatchObject({
            status: 'dead_lettered',
            http_status: 500,
            attempt_count: 6,
            dlq_reason: 'max_attempts',
          });
        else
          expect(r).toMatchObject({
            status: 'delivered',
            http_status: 200,
            attempt_count: 6,
            dlq_at: null,
            next_retry_at: null,
          });
      }
      expect(
        (
          await db()('webhook_deliveries').whereIn(
            'id',
            old.map((d) => d.id),
          )
        ).every((r) => r.status === 'dead_lettered' && r.attempt_count === 5),
      ).toBe(true);
      const d = (await api(app, 'GET', `/api/v1/webhooks/${hook.id}/deliveries/${dead[0]!.id}`, as('viewer'))).body
        .data;
      expect(d.attempts.at(-1)).toMatchObject({ number: 6, source: 'recovery', recovery_id: rid, http_status: 500 });
      const list = (await api(app, 'GET', `/api/v1/webhooks/${hook.id}/recoveries`, as('viewer'))).body.data;
      expect(list.map((r: { id: string }) => r.id)).toEqual([rid]);
      expect(await db()('audit_logs').where({ resource_id: rid, action: 'webhook_recovery.created' })).toHaveLength(1);
      const handle = app.runtime.ctx.temporal.client.workflow.getHandle(recoveryWorkflowId(rid));
      await handle.result(); // the record says completed just before the run does (its last activity writes it)
      expect((await handle.describe()).status.name).toBe('COMPLETED');

      // A second recovery of the window finds only what is still failed or dead-lettered: the 3 refused.
      receiver.requests.length = 0;
      const again = await recover(hook.id, {
        since: new Date(Date.now() - 24 * hour).toISOString(),
        statuses: ['dead_lettered'],
      });
      expect(await settled(hook.id, again.body.data.id)).toMatchObject({
        matched: 3,
        redelivered: 3,
        failed: 3,
        statuses: ['dead_lettered'],
      });
      expect(idsAt('/recover').sort()).toEqual([...refusing].sort());
    },
  );

  it(
    'allows one running recovery per webhook; cancel stops it, ' +
      'the sends in flight finish, each delivery goes out once',
    async () => {
      const hook = await hookAt('/slow');
      const seeded = await seedFinishedDeliveries(db(), hook.id, t.orgId, 300, {
        createdAt: new Date(Date.now() - hour),
      });
      receiver.handle((_r, res) => void setTimeout(() => res.end('ok'), 30));
      const since = new Date(Date.now() - 2 * hour).toISOString();
      const first = (await recover(hook.id, { since })).body.data;
      const second = await recover(hook.id, { since }, 'admin');
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ success: false, code: 'recovery_running', recovery_id: first.id });

      await receiver.waitFor(20);
      const cancelled = await api(
        app,
        'POST',
        `/api/v1/webhooks/${hook.id}/recoveries/${first.id}/cancel`,
        as('editor'),
      );
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.data).toMatchObject({ status: 'cancelled' });
      const handle = app.runtime.ctx.temporal.client.workflow.getHandle(recoveryWorkflowId(first.id));
      await waitUntil(async () => (await handle.describe()).status.name === 'CANCELLED', 20_000, 'workflow cancelled');
      const sentBefore = idsAt('/slow').length;
      expect(sentBefore).toBeLessThan(300);
      expect(await get(hook.id, first.id)).toMatchObject({
        status: 'cancelled',
        redelivered: sentBefore,
        delivered: sentBefore,
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(idsAt('/slow')).toHaveLength(sentBefore);
      expect(
        await db()('audit_logs').where({ resource_id: first.id, action: 'webhook_recovery.cancelled' }),
      ).toHaveLength(1);

      // The rest: a new recovery finds only what the first did not deliver.
      receiver.handle((_r, res) => void res.end('ok'));
      const rest = (await recover(hook.id, { since })).body.data;
      expect(await settled(hook.id, rest.id)).toMatchObject({ status: 'completed', redelivered: 300 - sentBefore });
      const sent = idsAt('/slow');
      expect(sent.sort()).toEqual(seeded.map((d) => d.id).sort());

      // Pausing the webhook stops a running recovery too.
      await seedFinishedDeliveries(db(), hook.id, t.orgId, 200, { createdAt: new Date(Date.now() - hour) });
      receiver.handle((_r, res) => void setTimeout(() => res.end('ok'), 30));
      const third = (await recover(hook.id, { since })).body.data;
      await api(app, 'PATCH', `/api/v1/webhooks/${hook.id}`, { ...as('admin'), body: { is_active: false } });
      expect(await settled(hook.id, third.id)).toMatchObject({ status: 'cancelled' });
    },
  );

  it('refuses bad windows and statuses with 400, and unknown or foreign ids with 404', async () => {
    const hook = await hookAt('/bad');
    const since = new Date(Date.now() - hour).toISOString();
    for (const [body, field] of [
      [{}, /since/],
      [{ since: 'yesterday' }, /since/],
      [{ since: '0000-01-01T00:00:00Z' }, /since/],
      [{ since, until: new Date(Date.now() - 2 * hour).toISOString() }, /since/],
      [{ since: new Date(Date.now() + hour).toISOString() }, /since/],
      [{ since, statuses: [] }, /statuses/],
      [{ since, statuses: ['delivered'] }, /statuses/],
      [{ since, webhook_id: hook.id }, /Unrecognized|webhook_id/i],
    ] as const) {
      const r = await recover(hook.id, body);
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), 400, 'validation_error']);
      expect(r.body.error).toMatch(field);
    }
    const rid = (await recover(hook.id, { since })).body.data.id;
    const otherHook = await hookAt('/bad-other');
    for (const path of [
      `${otherHook.id}/recoveries/${rid}`,
      `${hook.id}/recoveries/00000000-0000-4000-8000-000000000000`,
      `${hook.id}/recoveries/nope`,
    ]) {
      expect((await api(app, 'GET', `/api/v1/webhooks/${path}`, as('admin'))).status).toBe(404);
      expect((await api(app, 'POST', `/api/v1/webhooks/${path}/cancel`, as('admin'))).status).toBe(404);
    }
    expect((await recover('00000000-0000-4000-8000-000000000000', { since })).status).toBe(404);
    expect((await api(app, 'GET', '/api/v1/webhooks/nope/recoveries', as('admin'))).status).toBe(404);
    expect((await api(app, 'GET', `/api/v1/webhooks/${hook.id}/recoveries?limit=0`, as('admin'))).status).toBe(400);
  });

  describe('role matrix', () => {
    let hookId: string;
    let rid: string;
    beforeAll(async () => {
      hookId = (await hookAt('/matrix')).id;
      rid = (await recover(hookId, { since: new Date(Date.now() - hour).toISOString() })).body.data.id;
      await settled(hookId, rid);
    });
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        // One running recovery per webhook: each call gets a webhook of its own.
        {
          name: 'POST /webhooks/:id/recover',
          method: 'POST',
          path: async () => `/api/v1/webhooks/${(await hookAt('/matrix-fresh')).id}/recover`,
          body: { since: '2026-01-01T00:00:00Z' },
          ok: 202,
          write: true,
        },
        { name: 'GET /webhooks/:id/recoveries', method: 'GET', path: () => `/api/v1/webhooks/${hookId}/recoveries` },
        {
          name: 'GET /webhooks/:id/recoveries/:rid',
          method: 'GET',
          path: () => `/api/v1/webhooks/${hookId}/recoveries/${rid}`,
        },
        {
          name: 'POST /webhooks/:id/recoveries/:rid/cancel',
          method: 'POST',
          path: () => `/api/v1/webhooks/${hookId}/recoveries/${rid}/cancel`,
          write: true,
        },
      ],
    );
    it('another organization’s webhook and recovery ids → 404', async () => {
      const theirs = await hookAt('/theirs', other);
      const theirRid = (
        await api(app, 'POST', `/api/v1/webhooks/${theirs.id}/recover`, {
          token: other.admin.token,
          orgId: other.orgId,
          body: { since: '2026-01-01T00:00:00Z' },
        })
      ).body.data.id;
      for (const token of [t.admin.token, t.editor.token]) {
        const mine = { token, orgId: t.orgId };
        expect(
          (
            await api(app, 'POST', `/api/v1/webhooks/${theirs.id}/recover`, {
              ...mine,
              body: { since: '2026-01-01T00:00:00Z' },
            })
          ).status,
        ).toBe(404);
        expect((await api(app, 'GET', `/api/v1/webhooks/${theirs.id}/recoveries`, mine)).status).toBe(404);
        expect((await api(app, 'GET', `/api/v1/webhooks/${theirs.id}/recoveries/${theirRid}`, mine)).status).toBe(404);
        expect(
          (await api(app, 'POST', `/api/v1/webhooks/${theirs.id}/recoveries/${theirRid}/cancel`, mine)).status,
        ).toBe(404);
        expect((await api(app, 'GET', `/api/v1/webhooks/${hookId}/recoveries/${theirRid}`, mine)).status).toBe(404);
      }
    });
  });
});
