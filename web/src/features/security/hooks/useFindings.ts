import { unwrap, unwrapPage } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';
import type { QueryOf, Schema } from '../../../api/types';
import { toast } from '../../../lib/toast';

export type FindingStatus = Schema<'SecurityFinding'>['status'];

export const useFindings = (filter: Pick<QueryOf<'/api/v1/security/findings'>, 'status' | 'min_severity'>) =>
  useApiQuery(['security', 'findings', filter], ({ api, projectId, signal }) =>
    unwrapPage(
      api.GET('/api/v1/security/findings', {
        params: { query: { ...filter, limit: 200, ...inProject(projectId) } },
        signal,
      }),
    ).then((p) => p.data),
  );

/** One finding: its masked excerpt and where it was first and last seen. */
export const useFinding = (id: string) =>
  useApiQuery(['security', 'finding', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/security/findings/{id}', { params: { path: { id } }, signal })),
  );

const DONE: Record<FindingStatus, string> = {
  open: 'Finding reopened',
  resolved: 'Finding resolved',
  dismissed: 'Finding dismissed',
};

/** Resolve, dismiss or reopen a finding. */
export const useSetFindingStatus = () =>
  useApiMutation(
    (api, { id, status }: { id: string; status: FindingStatus }) =>
      unwrap(api.PATCH('/api/v1/security/findings/{id}', { params: { path: { id } }, body: { status } })),
    { invalidates: ['security'], onSuccess: (f) => toast(DONE[f.status]) },
  );
