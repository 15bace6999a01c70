import { z } from 'zod';
import { ROLES } from '../../auth/principal';
import { uuidParams, uuidSchema } from '../../http/ids';
import { nameSchema, timestamp } from '../../http/schemas';
import { PLANS } from '../plans';

export const orgParams = uuidParams('orgId');
export const createOrganizationBody = z.object({ name: nameSchema }).strict();
export const updateOrganizationBody = z.object({ name: nameSchema }).strict();
export const transferOwnershipBody = z.object({ user_id: uuidSchema }).strict();

export const organizationSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    plan: z.enum(PLANS),
    owner_user_id: z.uuid(),
    created_at: timestamp,
    updated_at: timestamp,
    role: z.enum(ROLES).optional().meta({ description: "The caller's role (lists, reads and creation)" }),
    is_owner: z.boolean().optional(),
  })
  .meta({ id: 'Organization' });
