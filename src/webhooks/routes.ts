import type { AppContext } from '../context';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import { deliveryRoutes } from './deliveries/routes';
import { insightRoutes } from './insights/routes';
import { recoveryRoutes } from './recoveries/routes';
import {
  createWebhookBody,
  deliverySchema,
  rotateSecretBody,
  testDeliverySchema,
  updateWebhookBody,
  webhookParams,
  webhookSchema,
} from './schemas';
import { listDeliveries, sendTestDelivery } from './webhook-deliveries';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateSecret,
  updateWebhook,
  webhookDeps,
} from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Webhooks', auth: 'jwt', notFound: 'Webhook' } as const;
const BASE = '/api/v1/webhooks';

/** /api/v1/webhooks: reads for admin, editor, viewer; writes for admin, editor (docs/webhooks.md). */
export const webhookRoutes = (ctx: AppContext) => {
  const deps = webhookDeps(ctx);
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List the webhooks of the organization (secrets masked)',
      response: webhookSchema.array(),
      handler: ({ principal }) => listWebhooks(deps, principal.orgId),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Register a webhook; the answer holds the full secret, shown this once',
      roles: WRITERS,
      body: createWebhookBody,
      status: 201,
      response: webhookSchema,
      errors: { 409: 'The organization already has 20 webhooks (webhook_limit_reached)' },
      handler: ({ principal, body }) => createWebhook(deps, principal, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Read a webhook (secret masked)',
      params: webhookParams,
      response: webhookSchema,
      handler: ({ principal, params }) => getWebhook(deps, principal.orgId, params.id),
    }),
    route({
      ...common,
      method: 'patch',
      path: `${BASE}/:id`,
      summary: 'Change name, url, events or is_active; is_active false stops pending retries',
      roles: WRITERS,
      params: webhookParams,
      body: updateWebhookBody,
      response: webhookSchema,
      handler: ({ principal, params, body }) => updateWebhook(deps, principal, params.id, body),
    }),
    route({
      ...common,
      method: 'delete',
      path: `${BASE}/:id`,
      summary: 'Delete a webhook and stop its pending retries',
      roles: WRITERS,
      params: webhookParams,
      response: deletedSchema,
      handler: async ({ principal, params }) => {
        await deleteWebhook(deps, principal, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/test`,
      summary: 'Send one signed test payload now and answer with its outcome',
      roles: WRITERS,
      params: webhookParams,
      response: testDeliverySchema,
      handler: ({ principal, params }) => sendTestDelivery(deps, principal, params.id),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/secret/rotate`,
      summary: 'Replace the secret (the answer holds the new one, shown this once); the old one signs for a while',
      roles: WRITERS,
      params: webhookParams,
      body: rotateSecretBody,
      response: webhookSchema,
      handler: ({ principal, params, body }) => rotateSecret(deps, principal, params.id, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/deliveries`,
      summary: 'The 10 most recent delivery records, newest first',
      params: webhookParams,
      response: deliverySchema.array(),
      handler: ({ principal, params }) => listDeliveries(deps, principal.orgId, params.id),
    }),
    ...deliveryRoutes(ctx),
    ...insightRoutes(ctx),
    ...recoveryRoutes(ctx),
  ];
};
