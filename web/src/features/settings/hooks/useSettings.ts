import { ApiError, unwrap } from '../../../api/client';
import type { paths } from '../../../api/schema';
import type { ExportFormat, ExportResource, Provider, Role } from '../../../api/enums';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';

/** Everything Settings reads and writes; each write marks the lists it changes as stale. */
export const useApiKeys = () =>
  useApiQuery(['api-keys'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/api-keys', { params: { query: inProject(projectId) }, signal })),
  );
export const useProviderKeys = () =>
  useApiQuery(['provider-keys'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/provider-keys', { params: { query: inProject(projectId) }, signal })),
  );
export const useMembers = (orgId: string) =>
  useApiQuery(['members'], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/organizations/{orgId}/members', { params: { path: { orgId } }, signal })),
  );
export const useInvitations = (orgId: string, enabled: boolean) =>
  useApiQuery(
    ['invitations'],
    ({ api, signal }) =>
      unwrap(api.GET('/api/v1/organizations/{orgId}/invitations', { params: { path: { orgId } }, signal })),
    { enabled },
  );
export const useBilling = () =>
  useApiQuery(['billing'], ({ api, signal }) => unwrap(api.GET('/api/v1/billing', { signal })));
export const useRateLimits = () =>
  useApiQuery(['rate-limits'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/rate-limits', { params: { query: inProject(projectId) }, signal })),
  );
export const useExports = () =>
  useApiQuery(
    ['exports'],
    ({ api, projectId, signal }) =>
      unwrap(api.GET('/api/v1/exports', { params: { query: inProject(projectId) }, signal })),
    {
      // An export in progress reports its rows as it goes.
      refetchInterval: (q) =>
        q.state.data?.some((x) => x.status === 'pending' || x.status === 'running') ? 2000 : false,
    },
  );

export const useCreateProject = () =>
  useApiMutation((api, name: string) => unwrap(api.POST('/api/v1/projects', { body: { name } })), {
    invalidates: ['projects'],
    success: 'Project created',
  });
export const useCreateApiKey = () =>
  useApiMutation(
    (api, body: { project_id: string; scope: 'full' | 'public'; name?: string }) =>
      unwrap(api.POST('/api/v1/api-keys', { body })),
    { invalidates: ['api-keys'] },
  );
export const useRevokeApiKey = () =>
  useApiMutation(
    (api, id: string) =>
      unwrap(api.PATCH('/api/v1/api-keys/{id}', { params: { path: { id } }, body: { is_active: false } })),
    { invalidates: ['api-keys'], success: 'Key revoked' },
  );
export const useSaveProviderKey = () =>
  useApiMutation(
    (api, body: { project_id: string; provider: Provider; api_key: string }) =>
      unwrap(api.PUT('/api/v1/provider-keys', { body })),
    { invalidates: ['provider-keys'], success: 'Provider key saved' },
  );
export const useInvite = (orgId: string) =>
  useApiMutation(
    (api, body: { email: string; role: Role }) =>
      unwrap(api.POST('/api/v1/organizations/{orgId}/invitations', { params: { path: { orgId } }, body })),
    { invalidates: ['invitations'], success: 'Invitation sent' },
  );
export const useStartExport = () =>
  useApiMutation(
    (api, body: { resource: ExportResource; format: ExportFormat; project_id?: string }) =>
      unwrap(api.POST('/api/v1/exports', { body })),
    { invalidates: ['exports'], success: 'Export started' },
  );

export const useChangeRole = (orgId: string) =>
  useApiMutation(
    (api, { userId, role }: { userId: string; role: Role }) =>
      unwrap(
        api.PATCH('/api/v1/organizations/{orgId}/members/{userId}', {
          params: { path: { orgId, userId } },
          body: { role },
        }),
      ),
    { invalidates: ['members'], success: 'Role changed' },
  );
export const useRemoveMember = (orgId: string) =>
  useApiMutation(
    (api, userId: string) =>
      unwrap(api.DELETE('/api/v1/organizations/{orgId}/members/{userId}', { params: { path: { orgId, userId } } })),
    { invalidates: ['members'], success: 'Member removed' },
  );
export const useRevokeInvitation = (orgId: string) =>
  useApiMutation(
    (api, id: string) =>
      unwrap(api.DELETE('/api/v1/organizations/{orgId}/invitations/{id}', { params: { path: { orgId, id } } })),
    { invalidates: ['invitations'], success: 'Invitation revoked' },
  );
export type RateLimitBody = NonNullable<
  paths['/api/v1/rate-limits']['put']['requestBody']
>['content']['application/json'];
export const useSaveRateLimit = () =>
  useApiMutation((api, body: RateLimitBody) => unwrap(api.PUT('/api/v1/rate-limits', { body })), {
    invalidates: ['rate-limits'],
    success: 'Rate limit saved',
  });
export const useRemoveRateLimit = () =>
  useApiMutation(
    async (api, projectId: string) => {
      const r = await api.DELETE('/api/v1/rate-limits', { params: { query: { project_id: projectId } } });
      if (!r.response.ok) throw new ApiError(r.response.status, 'error', `HTTP ${r.response.status}`);
      return projectId;
    },
    { invalidates: ['rate-limits'], success: 'Rate limit removed' },
  );

export type SavedFilterBody = paths['/api/v1/saved-filters']['post']['requestBody']['content']['application/json'];
export type SavedFilterPatch = NonNullable<
  paths['/api/v1/saved-filters/{id}']['patch']['requestBody']
>['content']['application/json'];
export const useSavedFilters = () =>
  useApiQuery(['saved-filters', 'all'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/saved-filters', { params: { query: inProject(projectId) }, signal })),
  );
export const useCreateSavedFilter = () =>
  useApiMutation((api, body: SavedFilterBody) => unwrap(api.POST('/api/v1/saved-filters', { body })), {
    invalidates: ['saved-filters'],
    success: 'Saved filter created',
  });
export const useUpdateSavedFilter = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: SavedFilterPatch }) =>
      unwrap(api.PATCH('/api/v1/saved-filters/{id}', { params: { path: { id } }, body })),
    { invalidates: ['saved-filters'], success: 'Saved filter saved' },
  );
export const useDeleteSavedFilter = () =>
  useApiMutation((api, id: string) => unwrap(api.DELETE('/api/v1/saved-filters/{id}', { params: { path: { id } } })), {
    invalidates: ['saved-filters'],
    success: 'Saved filter deleted',
  });
