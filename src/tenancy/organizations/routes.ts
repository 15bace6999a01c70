import { asUser, authUserOf } from '../../auth/principal';
import type { AppContext } from '../../context';
import { route } from '../../http/route';
import { deletedSchema } from '../../http/schemas';
import {
  createOrganizationBody,
  organizationSchema,
  orgParams,
  transferOwnershipBody,
  updateOrganizationBody,
} from './schemas';
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listMyOrganizations,
  renameOrganization,
  transferOwnership,
} from './service';

const common = { tag: 'Organizations', notFound: 'Organization' } as const;
const member = { ...common, auth: 'jwt', params: orgParams } as const;
const limitError = { 402: 'The owner already owns as many workspaces as the plan allows (workspace_limit_reached)' };

/** /api/v1/organizations: workspaces of the caller. */
export const organizationRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/organizations',
    summary: 'List the organizations you belong to, with your role',
    auth: 'jwt_user',
    response: organizationSchema.array(),
    handler: ({ req }) => listMyOrganizations(db, authUserOf(req).userId),
  }),
  route({
    ...common,
    method: 'post',
    path: '/api/v1/organizations',
    summary: 'Create a workspace; you become its owner and admin',
    auth: 'jwt_user',
    body: createOrganizationBody,
    status: 201,
    response: organizationSchema,
    errors: limitError,
    handler: ({ req, body }) => createOrganization(db, authUserOf(req), body.name),
  }),
  route({
    ...member,
    method: 'get',
    path: '/api/v1/organizations/:orgId',
    summary: 'Read an organization you belong to',
    response: organizationSchema,
    handler: ({ principal }) => getOrganization(db, asUser(principal)),
  }),
  route({
    ...member,
    method: 'patch',
    path: '/api/v1/organizations/:orgId',
    summary: 'Rename the organization',
    roles: ['admin'],
    body: updateOrganizationBody,
    response: organizationSchema,
    handler: ({ principal, body }) => renameOrganization(db, asUser(principal), body.name),
  }),
  route({
    ...member,
    method: 'delete',
    path: '/api/v1/organizations/:orgId',
    summary: 'Delete the workspace and everything in it (owner only)',
    roles: ['admin'],
    response: deletedSchema,
    handler: async ({ principal }) => {
      await deleteOrganization(db, asUser(principal));
      return { id: principal.orgId, deleted: true as const };
    },
  }),
  route({
    ...member,
    method: 'post',
    path: '/api/v1/organizations/:orgId/transfer-ownership',
    summary: 'Hand ownership to another admin (owner only)',
    roles: ['admin'],
    body: transferOwnershipBody,
    response: organizationSchema,
    errors: { ...limitError, 409: 'The new owner is not an admin' },
    handler: ({ principal, body }) => transferOwnership(db, asUser(principal), body.user_id),
  }),
];
