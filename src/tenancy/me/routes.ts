import { authUserOf } from '../../auth/principal';
import type { AppContext } from '../../context';
import { route } from '../../http/route';
import { pendingInvitationSchema } from '../invitations/schemas';
import { listPendingInvitationsFor } from '../invitations/service';
import { listMyOrganizations } from '../organizations/service';
import { meSchema } from './schemas';

const common = { tag: 'Me', auth: 'jwt_user' } as const;

/** /api/v1/me: the signed-in user, without organization context. */
export const meRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/me',
    summary: 'The signed-in user and their organizations',
    response: meSchema,
    handler: async ({ req }) => {
      const u = authUserOf(req);
      return {
        user: { id: u.userId, sub: u.sub, email: u.email },
        organizations: await listMyOrganizations(db, u.userId),
      };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/me/invitations',
    summary: 'Pending invitations addressed to your email',
    response: pendingInvitationSchema.array(),
    handler: ({ req }) => listPendingInvitationsFor(db, authUserOf(req)),
  }),
];
