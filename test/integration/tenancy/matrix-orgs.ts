import { ADMIN, adminCall, ALL, type Endpoint, newMember, newProject, tag, WRITERS } from './matrix-rules';

/** Rows of the role matrix (matrix.test.ts) for organizations, members, invitations and projects. */
export const organizationRows: Endpoint[] = [
  // Organizations
  {
    name: 'GET /organizations',
    method: 'GET',
    auth: 'jwt',
    org: 'none',
    roles: ALL,
    ok: 200,
    prepare: () => ({ path: '/api/v1/organizations' }),
  },
  {
    name: 'GET /organizations/:orgId',
    method: 'GET',
    auth: 'jwt',
    org: 'path',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}` }),
  },
  {
    name: 'PATCH /organizations/:orgId',
    method: 'PATCH',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}`, body: { name: `Renamed ${tag()}` } }),
  },
  {
    // Past the role check the owner rule answers: the target is not an admin (409). Proves auth passed without moving
    // ownership.
    name: 'POST /organizations/:orgId/transfer-ownership',
    method: 'POST',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 409,
    prepare: (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/transfer-ownership`,
      body: { user_id: c.t.viewer.userId },
    }),
  },
  // Members
  {
    name: 'GET /organizations/:orgId/members',
    method: 'GET',
    auth: 'jwt',
    org: 'path',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}/members` }),
  },
  {
    name: 'PATCH /organizations/:orgId/members/:userId',
    method: 'PATCH',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/members/${await newMember(c, 'viewer')}`,
      body: { role: 'editor' },
    }),
  },
  {
    name: 'PUT /organizations/:orgId/members/:userId',
    method: 'PUT',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/members/${await newMember(c, 'editor')}`,
      body: { role: 'viewer' },
    }),
  },
  {
    name: 'DELETE /organizations/:orgId/members/:userId',
    method: 'DELETE',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/organizations/${c.t.orgId}/members/${await newMember(c, 'viewer')}` }),
  },
  // Invitations
  {
    name: 'GET /organizations/:orgId/invitations',
    method: 'GET',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/organizations/${c.t.orgId}/invitations` }),
  },
  {
    name: 'POST /organizations/:orgId/invitations',
    method: 'POST',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 201,
    prepare: (c) => ({
      path: `/api/v1/organizations/${c.t.orgId}/invitations`,
      body: { email: `x-${tag()}@example.test`, role: 'viewer' },
    }),
  },
  {
    name: 'DELETE /organizations/:orgId/invitations/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'path',
    roles: ADMIN,
    ok: 200,
    prepare: async (c) => {
      const inv = await adminCall(c, 'POST', `/api/v1/organizations/${c.t.orgId}/invitations`, {
        email: `y-${tag()}@example.test`,
        role: 'viewer',
      });
      return { path: `/api/v1/organizations/${c.t.orgId}/invitations/${inv.id}` };
    },
  },
  // Projects
  {
    name: 'GET /projects',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    ownContext: 200,
    prepare: () => ({ path: '/api/v1/projects' }),
  },
  {
    name: 'POST /projects',
    method: 'POST',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 201,
    ownContext: 201,
    prepare: () => ({ path: '/api/v1/projects', body: { name: `p-${tag()}` } }),
  },
  {
    name: 'GET /projects/:id',
    method: 'GET',
    auth: 'jwt',
    org: 'header',
    roles: ALL,
    ok: 200,
    prepare: (c) => ({ path: `/api/v1/projects/${c.t.projectId}` }),
  },
  {
    name: 'PATCH /projects/:id',
    method: 'PATCH',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/projects/${(await newProject(c)).id}`, body: { name: `q-${tag()}` } }),
  },
  {
    name: 'DELETE /projects/:id',
    method: 'DELETE',
    auth: 'jwt',
    org: 'header',
    roles: WRITERS,
    ok: 200,
    prepare: async (c) => ({ path: `/api/v1/projects/${(await newProject(c)).id}` }),
  },
];
