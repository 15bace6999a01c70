import { z } from 'zod';
import { timestamp } from '../../http/schemas';
import { PLANS } from '../plans';

export const changePlanBody = z.object({ plan: z.enum(PLANS) }).strict();

const plan = z.enum(PLANS);
export const billingSchema = z
  .object({
    organization_id: z.uuid(),
    plan,
    owner_user_id: z.uuid(),
    plans: z.array(z.object({ plan, workspace_limit: z.number().int().nullable() })),
    limits: z.object({ workspaces_per_owner: z.number().int().nullable().meta({ description: 'null: unlimited' }) }),
    usage: z.object({
      projects: z.number().int(),
      members: z.number().int(),
      api_keys: z.number().int(),
      requests_this_month: z.number().int().nullable(),
    }),
    plan_changes: z.array(
      z.object({ from_plan: plan, to_plan: plan, changed_by: z.uuid().nullable(), created_at: timestamp }),
    ),
  })
  .meta({ id: 'Billing' });

export const planChangeSchema = z
  .object({ organization_id: z.uuid(), plan, previous_plan: plan })
  .meta({ id: 'PlanChange' });
