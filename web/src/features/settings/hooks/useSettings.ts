import { unwrap } from '../../../api/client';
import type { ExportFormat, ExportResource, Provider, Role } from '../../../api/enums';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';

/** Everything Settings reads and writes; each write marks the lists it changes as stale. */
export const useApiKeys = () => useApiQuery(['api-keys'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/api-keys', { params: { query: inProject(projectId) }, signal })));
export const useProviderKeys = () => useApiQuery(['provider-keys'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/provider-keys', { params: { query: inProject(projectId) }, signal })));
export const useMembers = (orgId: string) => useApiQuery(['members'], ({ api, signal }) => unwrap(api.GET('/api/v1/organizations/{orgId}/members', { params: { path: { orgId } }, signal })));
export const useInvitations = (orgId: string, enabled: boolean) =>
  useApiQuery(['invitations'], ({ api, signal }) => unwrap(api.GET('/api/v1/organizations/{orgId}/invitations', { params: { path: { orgId } }, signal })), { enabled });
export const useBilling = () => useApiQuery(['billing'], ({ api, signal }) => unwrap(api.GET('/api/v1/billing', { signal })));
export const useRateLimits = () => useApiQuery(['rate-limits'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/rate-limits', { params: { query: inProject(projectId) }, signal })));
export const useExports = () =>
  useApiQuery(['exports'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/exports', { params: { query: inProject(projectId) }, signal })), {
    // An export in progress reports its rows as it goes.
    refetchInterval: (q) => (q.state.data?.some((x) => x.status === 'pending' || x.status === 'running') ? 2000 : false),
  });

export const useCreateProject = () =>
  useApiMutation((api, name: string) => unwrap(api.POST('/api/v1/projects', { body: { name } })), { invalidates: ['projects'], success: 'Project created' });
export const useCreateApiKey = () =>
  useApiMutation((api, body: { project_id: string; scope: 'full' | 'public'; name?: string }) => unwrap(api.POST('/api/v1/api-keys', { body })), { invalidates: ['api-keys'] });
export const useRevokeApiKey = () =>
  useApiMutation((api, id: string) => unwrap(api.PATCH('/api/v1/api-keys/{id}', { params: { path: { id } }, body: { is_active: false } })), { invalidates: ['api-keys'], success: 'Key revoked' });
export const useSaveProviderKey = () =>
  useApiMutation((api, body: { project_id: string; provider: Provider; api_key: string }) => unwrap(api.PUT('/api/v1/provider-keys', { body })), { invalidates: ['provider-keys'], success: 'Provider key saved' });
export const useInvite = (orgId: string) =>
  useApiMutation((api, body: { email: string; role: Role }) => unwrap(api.POST('/api/v1/organizations/{orgId}/invitations', { params: { path: { orgId } }, body })), { invalidates: ['invitations'], success: 'Invitation sent' });
export const useStartExport = () =>
  useApiMutation((api, body: { resource: ExportResource; format: ExportFormat; project_id?: string }) => unwrap(api.POST('/api/v1/exports', { body })), { invalidates: ['exports'], success: 'Export started' });
