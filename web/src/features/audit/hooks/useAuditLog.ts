import { unwrapPage } from '../../../api/client';
import { useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';

/** The organization's audit log, newest first (the latest 200). */
export const useAuditLog = (filter: Pick<QueryOf<'/api/v1/audit-logs'>, 'action' | 'resource_type'>) =>
  useApiQuery(['audit-logs', filter], ({ api, signal }) =>
    unwrapPage(api.GET('/api/v1/audit-logs', { params: { query: { ...filter, limit: 200 } }, signal })).then(
      (p) => p.data,
    ),
  );
