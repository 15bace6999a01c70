import { Router, type Request, type Response } from 'express';
import { isUuid, requireJwt, requireRole } from '../auth/middleware';
import { principalOf } from '../auth/principal';
import type { AppContext } from '../context';
import { notFound } from '../http/errors';
import { parseBody } from '../http/validate';
import { safeHttpClientFromConfig } from '../webhooks/safe-http';
import { createWebhookBody, updateWebhookBody } from '../webhooks/schemas';
import { keyringFor } from '../webhooks/secrets';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  sendTestDelivery,
  updateWebhook,
  type WebhookDeps,
} from '../webhooks/service';

const ok = (res: Response, data: unknown, status = 200) => res.status(status).json({ success: true, data });

function webhookId(req: Request): string {
  const id = req.params.id;
  if (!isUuid(id)) throw notFound('Webhook');
  return id.toLowerCase();
}

/**
 * /api/v1/webhooks (JWT; reads: admin, editor, viewer; writes: admin, editor).
 * 201 create (full secret, only here), 200 read/update/test, 200 delete `{id, deleted:true}`.
 */
export function webhooksRouter(ctx: AppContext): Router {
  const r = Router();
  const base = '/api/v1/webhooks';
  const auth = requireJwt(ctx);
  const writer = requireRole('admin', 'editor');

  // The test endpoint sends through the same SSRF-guarded client as the worker (built now, so a
  // bad WEBHOOK_CA_FILE stops start-up); the keyring is resolved on first use.
  const http = safeHttpClientFromConfig(ctx.config);
  ctx.onShutdown(() => http.close());
  let deps: WebhookDeps | undefined;
  const depsOf = (): WebhookDeps =>
    (deps ??= { db: ctx.db, keyring: keyringFor(ctx.config), temporal: ctx.temporal.client, http, logger: ctx.logger });

  r.get(base, auth, async (req, res) => ok(res, await listWebhooks(depsOf(), principalOf(req).orgId)));
  r.post(base, auth, writer, async (req, res) => ok(res, await createWebhook(depsOf(), principalOf(req), parseBody(createWebhookBody, req)), 201));
  r.get(`${base}/:id`, auth, async (req, res) => ok(res, await getWebhook(depsOf(), principalOf(req).orgId, webhookId(req))));
  r.patch(`${base}/:id`, auth, writer, async (req, res) => {
    const id = webhookId(req);
    ok(res, await updateWebhook(depsOf(), principalOf(req), id, parseBody(updateWebhookBody, req)));
  });
  r.delete(`${base}/:id`, auth, writer, async (req, res) => {
    const id = webhookId(req);
    await deleteWebhook(depsOf(), principalOf(req), id);
    ok(res, { id, deleted: true });
  });
  r.post(`${base}/:id/test`, auth, writer, async (req, res) => ok(res, await sendTestDelivery(depsOf(), principalOf(req), webhookId(req))));
  r.get(`${base}/:id/deliveries`, auth, async (req, res) => ok(res, await listDeliveries(depsOf(), principalOf(req).orgId, webhookId(req))));
  return r;
}
