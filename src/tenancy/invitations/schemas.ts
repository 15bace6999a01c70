import { z } from 'zod';
import { ROLES } from '../../auth/principal';
import { uuidParams } from '../../http/ids';
import { secretInput, timestamp } from '../../http/schemas';

const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;

export const orgInvitationParams = uuidParams('orgId', 'id');
export const invitationParams = uuidParams('id');
export const createInvitationBody = z
  .object({ email: z.email().max(320), role: z.enum(ROLES).default('viewer') })
  .strict();
export const listInvitationsQuery = z.object({ status: z.enum(INVITATION_STATUSES).optional() });
/** Tokens travel in bodies, not paths, so they never land in access logs. */
export const acceptInvitationBody = z.object({ token: secretInput(200) }).strict();

export const invitationSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    email: z.string(),
    role: z.enum(ROLES),
    invited_by: z.uuid().nullable(),
    expires_at: timestamp,
    accepted_at: timestamp.nullable(),
    accepted_by: z.uuid().nullable(),
    revoked_at: timestamp.nullable(),
    created_at: timestamp,
    status: z.enum(INVITATION_STATUSES),
  })
  .meta({ id: 'Invitation' });
export const createdInvitationSchema = invitationSchema
  .extend({
    token: z.string().meta({
      description: 'The invitation token (`inv_…`): shown in this response only',
      example: 'inv_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg',
    }),
  })
  .meta({ id: 'CreatedInvitation' });
export const acceptedInvitationSchema = z
  .object({ invitation: invitationSchema, organization_id: z.uuid(), role: z.enum(ROLES) })
  .meta({ id: 'AcceptedInvitation' });
export const pendingInvitationSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    org_name: z.string(),
    role: z.enum(ROLES),
    expires_at: timestamp,
    created_at: timestamp,
  })
  .meta({ id: 'PendingInvitation' });
