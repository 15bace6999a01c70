import type { AppContext } from '../../context';
import { route } from '../../http/route';
import { changeRoleBody, memberParams, memberRemovedSchema, memberRoleSchema, memberSchema } from './schemas';
import { changeMemberRole, listMembers, removeMember } from './service';

const common = { tag: 'Members', auth: 'jwt', notFound: 'Member' } as const;
const base = '/api/v1/organizations/:orgId/members';

/** /api/v1/organizations/:orgId/members: any member reads; admins write. */
export const memberRoutes = ({ db }: AppContext) => {
  const change = (method: 'patch' | 'put') =>
    route({
      ...common,
      method,
      path: `${base}/:userId`,
      summary: "Change a member's role (the last admin and the owner stay admins)",
      roles: ['admin'],
      params: memberParams,
      body: changeRoleBody,
      response: memberRoleSchema,
      errors: { 409: 'The last admin or the owner would lose the admin role' },
      handler: ({ principal, params, body }) => changeMemberRole(db, principal, params.userId, body.role),
    });
  return [
    route({
      ...common,
      method: 'get',
      path: base,
      summary: 'List the members of the organization',
      params: memberParams.pick({ orgId: true }),
      response: memberSchema.array(),
      handler: ({ principal }) => listMembers(db, principal.orgId),
    }),
    change('patch'),
    change('put'),
    route({
      ...common,
      method: 'delete',
      path: `${base}/:userId`,
      summary: 'Remove a member (not the last admin nor the owner)',
      roles: ['admin'],
      params: memberParams,
      response: memberRemovedSchema,
      errors: { 409: 'The last admin or the owner cannot be removed' },
      handler: async ({ principal, params }) => {
        await removeMember(db, principal, params.userId);
        return { user_id: params.userId, removed: true as const };
      },
    }),
  ];
};
