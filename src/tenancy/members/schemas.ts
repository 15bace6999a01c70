import { z } from 'zod';
import { ROLES } from '../../auth/principal';
import { uuidParams } from '../../http/ids';
import { timestamp } from '../../http/schemas';

export const memberParams = uuidParams('orgId', 'userId');
export const changeRoleBody = z.object({ role: z.enum(ROLES) }).strict();

export const memberSchema = z
  .object({
    user_id: z.uuid(),
    email: z.string().nullable(),
    sub: z.string(),
    role: z.enum(ROLES),
    joined_at: timestamp,
    is_owner: z.boolean(),
  })
  .meta({ id: 'Member' });
export const memberRoleSchema = z.object({ user_id: z.uuid(), role: z.enum(ROLES) }).meta({ id: 'MemberRole' });
export const memberRemovedSchema = z.object({ user_id: z.uuid(), removed: z.literal(true) });
