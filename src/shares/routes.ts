import type { AnalyticsStore } from '../analytics/store';
import type { AppContext } from '../context';
import { route } from '../http/route';
import { createShareBody, createdShareSchema, shareParams, shareSchema, sharedSchema, tokenParams } from './schemas';
import { createShare, listShares, revokeShare, viewShare } from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Shares', auth: 'jwt', notFound: 'Share' } as const;

/** /api/v1/shares (JWT; admin and editor create and revoke) and the public GET /share/:token (docs/shares.md). */
export const shareRoutes = ({ db }: AppContext, store: AnalyticsStore) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/shares',
    summary: 'List shares (tokens are never shown again)',
    response: shareSchema.array(),
    scope: 'organization',
    handler: async ({ scope }) => listShares(db, scope.projectIds),
  }),
  route({
    ...common,
    method: 'post',
    path: '/api/v1/shares',
    summary: 'Share one resource read-only: answers the token (once) and its URL',
    roles: WRITERS,
    body: createShareBody,
    status: 201,
    response: createdShareSchema,
    scope: 'project',
    handler: async ({ principal, scope, body, req }) =>
      createShare(db, store, principal, scope, body, `${req.protocol}://${req.get('host')}`),
  }),
  route({
    ...common,
    method: 'delete',
    path: '/api/v1/shares/:id',
    summary: 'Revoke a share (its link answers 404 from now on)',
    roles: WRITERS,
    params: shareParams,
    response: shareSchema,
    scope: 'organization',
    handler: async ({ principal, scope, params }) => revokeShare(db, principal, scope.projectIds, params.id),
  }),
  route({
    tag: 'Shares',
    auth: 'none',
    notFound: 'Share',
    method: 'get',
    path: '/share/:token',
    summary: 'The shared resource (no credentials: the token is the credential); expired, revoked or unknown: 404',
    params: tokenParams,
    response: sharedSchema,
    handler: async ({ params }) => viewShare(db, store, params.token),
  }),
];
