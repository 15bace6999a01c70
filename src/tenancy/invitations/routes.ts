import { asUser, authUserOf } from '../../auth/principal';
import type { AppContext } from '../../context';
import { route } from '../../http/route';
import {
  acceptedInvitationSchema,
  acceptInvitationBody,
  createdInvitationSchema,
  createInvitationBody,
  invitationParams,
  invitationSchema,
  listInvitationsQuery,
  orgInvitationParams,
} from './schemas';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from './service';

const admin = { tag: 'Invitations', auth: 'jwt', roles: ['admin'], notFound: 'Invitation' } as const;
const invitee = {
  tag: 'Invitations',
  auth: 'jwt_user',
  notFound: 'Invitation',
  response: acceptedInvitationSchema,
} as const;
const base = '/api/v1/organizations/:orgId/invitations';
const acceptErrors = {
  403: 'The invitation is for another email, or the email is not verified',
  409: 'Already accepted',
  410: 'Revoked or expired',
};

/**
 * /api/v1/organizations/:orgId/invitations (admins) and /api/v1/invitations/... (the invitee).
 * Tokens travel in bodies, not paths, so they never land in access logs.
 */
export const invitationRoutes = ({ db, config }: AppContext) => [
  route({
    ...admin,
    method: 'get',
    path: base,
    summary: 'List the invitations of the organization',
    params: orgInvitationParams.pick({ orgId: true }),
    query: listInvitationsQuery,
    response: invitationSchema.array(),
    handler: ({ principal, query }) => listInvitations(db, principal.orgId, query.status),
  }),
  route({
    ...admin,
    method: 'post',
    path: base,
    summary: 'Invite an email with a role; the token is in this response only',
    params: orgInvitationParams.pick({ orgId: true }),
    body: createInvitationBody,
    status: 201,
    response: createdInvitationSchema,
    errors: { 409: 'The email already belongs to a member' },
    handler: ({ principal, body }) =>
      createInvitation(db, asUser(principal), { ...body, ttlHours: config.INVITATION_TTL_HOURS }),
  }),
  route({
    ...admin,
    method: 'delete',
    path: `${base}/:id`,
    summary: 'Revoke an invitation',
    params: orgInvitationParams,
    response: invitationSchema,
    errors: { 409: 'The invitation was already accepted' },
    handler: ({ principal, params }) => revokeInvitation(db, principal, params.id),
  }),
  route({
    ...invitee,
    method: 'post',
    path: '/api/v1/invitations/accept',
    summary: 'Accept an invitation by its token',
    body: acceptInvitationBody,
    errors: acceptErrors,
    handler: ({ req, body }) => acceptInvitation(db, authUserOf(req), { token: body.token }),
  }),
  route({
    ...invitee,
    method: 'post',
    path: '/api/v1/invitations/:id/accept',
    summary: 'Accept an invitation addressed to you by its id',
    params: invitationParams,
    errors: acceptErrors,
    handler: ({ req, params }) => acceptInvitation(db, authUserOf(req), { id: params.id }),
  }),
];
