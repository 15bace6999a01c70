import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import type { HttpsReceiver } from '../../helpers/https-receiver';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { startApiBed, stopApiBed, type ApiBed } from './api-bed';
import { seedFinishedDeliveries } from './fixtures';

/**
 * GET …/deliveries/:deliveryId and POST …/redeliver by role and organization (deliveries-api.test.ts has the rest). No
 * worker: a redelivery started here never runs, and every call gets a fresh finished delivery.
 */
describe('webhook delivery detail and redeliver', () => {
  let bed: ApiBed;
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let receiver: HttpsReceiver;
  const db = () => app.runtime.ctx.db;

  beforeAll(async () => {
    bed = await startApiBed('api');
    ({ app, receiver, t, other } = bed);
  });
  afterAll(() => stopApiBed(bed));

  const createHook = async (path: string, tenant = t) =>
    (
      await api(app, 'POST', '/api/v1/webhooks', {
        token: tenant.admin.token,
        orgId: tenant.orgId,
        body: { name: path, url: `${receiver.url}${path}`, events: ['trace.completed'] },
      })
    ).body.data as { id: string; secret: string };

  describe('role matrix', () => {
    let hookId: string;
    let readable: string;
    const fresh = async () => (await seedFinishedDeliveries(db(), hookId, t.orgId, 1))[0]!.id;
    beforeAll(async () => {
      hookId = (await createHook('/matrix')).id;
      readable = await fresh();
    });
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        {
          name: 'GET /webhooks/:id/deliveries/:deliveryId',
          method: 'GET',
          path: () => `/api/v1/webhooks/${hookId}/deliveries/${readable}`,
        },
        {
          name: 'POST /webhooks/:id/deliveries/:deliveryId/redeliver',
          method: 'POST',
          path: async () => `/api/v1/webhooks/${hookId}/deliveries/${await fresh()}/redeliver`,
          ok: 202,
          write: true,
        },
      ],
    );
    it('another organization’s webhook and delivery ids → 404', async () => {
      const theirs = await createHook('/theirs', other);
      const [d] = await seedFinishedDeliveries(db(), theirs.id, other.orgId, 1);
      for (const token of [t.admin.token, t.editor.token]) {
        expect(
          (await api(app, 'GET', `/api/v1/webhooks/${theirs.id}/deliveries/${d!.id}`, { token, orgId: t.orgId }))
            .status,
        ).toBe(404);
        expect(
          (
            await api(app, 'POST', `/api/v1/webhooks/${theirs.id}/deliveries/${d!.id}/redeliver`, {
              token,
              orgId: t.orgId,
            })
          ).status,
        ).toBe(404);
      }
    });
  });
});
