import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, requireRole } from '../../auth/middleware';
import type { AppContext } from '../../context';
import { parseBody } from '../../http/validate';
import { billingSummary, changePlan } from '../../tenancy/billing';
import { PLANS } from '../../tenancy/plans';
import { ok, userOf } from './common';

export const changePlanBody = z.object({ plan: z.enum(PLANS) }).strict();

/** /api/v1/billing: the organization's plan and usage; admins change the plan. */
export function billingRouter(ctx: AppContext): Router {
  const r = Router();
  const auth = requireJwt(ctx);
  r.get('/api/v1/billing', auth, async (req, res) => ok(res, await billingSummary(ctx.db, userOf(req).orgId)));
  const change = async (req: import('express').Request, res: import('express').Response) => {
    const body = parseBody(changePlanBody, req);
    ok(res, await changePlan(ctx.db, userOf(req), body.plan));
  };
  r.patch('/api/v1/billing', auth, requireRole('admin'), change);
  r.put('/api/v1/billing', auth, requireRole('admin'), change);
  return r;
}
