import { adminCall, WRITERS, type Ctx, type Endpoint } from './matrix-rules';

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
];
