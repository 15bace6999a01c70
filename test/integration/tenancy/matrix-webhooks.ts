import { randomUUID } from 'node:crypto';
import { seedFinishedDeliveries, seedWebhook } from '../webhooks/fixtures';
import { adminCall, ALL, WRITERS, type Ctx, type Endpoint, type Identity } from './matrix-rules';

/**
 * Webhook rows of the role matrix (its other routes' roles are tested in test/integration/webhooks).
 * One webhook serves every identity: a rotation changes nothing another row relies on.
 */
let webhookId: Promise<string> | undefined;
const sharedWebhook = (c: Ctx) => {
  const body = { name: 'matrix', url: 'https://hooks.example.com/matrix', events: [] };
  webhookId ??= adminCall(c, 'POST', '/api/v1/webhooks', body).then((w: { id: string }) => w.id);
  return webhookId;
};
/** Writers get past the role check, each with its own webhook: with no worker here a recovery stays running. */
const recoverableWebhook = async (c: Ctx, who: Identity) =>
  who === 'admin' || who === 'editor'
    ? (await seedWebhook(c.app.runtime.ctx.db, c.app.config, c.t.orgId, 'https://hooks.example.com/matrix-recover')).id
    : sharedWebhook(c);
/** A fresh dead-lettered delivery per identity: a started redelivery (never run here) would make the next 409. */
const deadDelivery = async (c: Ctx) => {
  const hookId = await sharedWebhook(c);
  const [d] = await seedFinishedDeliveries(c.app.runtime.ctx.db, hookId, c.t.orgId, 1);
  return `/api/v1/webhooks/${hookId}/deliveries/${d!.id}`;
};
const idempotencyKey = () => ({ 'idempotency-key': `matrix-${randomUUID()}` });

export const webhookRows: Endpoint[] = [
  {
    name: 'POST /webhooks/:id/secret/rotate',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/webhooks/${await sharedWebhook(c)}/secret/rotate`,
      body: { previous_expires_in_seconds: 60 },
    }),
  },
  {
    name: 'PATCH /webhooks/:id (custom headers)',
    method: 'PATCH',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/webhooks/${await sharedWebhook(c)}`,
      body: { headers: { 'X-Matrix': 'v' } },
    }),
  },
  {
    // The catalogue is the same for everyone: an admin of another organization reads it in their own.
    name: 'GET /event-types',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/event-types' }),
  },
  {
    // Reads like a delivery's detail: every role; another organization's webhook is a 404.
    name: 'GET /webhooks/:id/attempts',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/webhooks/${await sharedWebhook(c)}/attempts?limit=5&status=failed` }),
  },
  {
    name: 'GET /webhooks/:id/stats',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/webhooks/${await sharedWebhook(c)}/stats?window=7d` }),
  },
  {
    name: 'POST /webhooks/:id/deliveries/:deliveryId/redeliver (Idempotency-Key)',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 202,
    prepare: async (c) => ({ path: `${await deadDelivery(c)}/redeliver`, headers: idempotencyKey() }),
  },
  {
    name: 'POST /webhooks/:id/recover (Idempotency-Key)',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 202,
    prepare: async (c, who) => ({
      path: `/api/v1/webhooks/${await recoverableWebhook(c, who)}/recover`,
      body: { since: new Date(Date.now() - 3600_000).toISOString() },
      headers: idempotencyKey(),
    }),
  },
];
