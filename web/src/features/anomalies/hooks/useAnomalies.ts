import { unwrap, unwrapPage } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';
import { toast } from '../../../lib/toast';

export const useAnomalies = (filter: Pick<QueryOf<'/api/v1/anomalies'>, 'status'>) =>
  useApiQuery(['anomalies', 'list', filter], ({ api, projectId, signal }) =>
    unwrapPage(
      api.GET('/api/v1/anomalies', { params: { query: { ...filter, limit: 200, ...inProject(projectId) } }, signal }),
    ).then((p) => p.data),
  );

/** One anomaly with its expected band, baseline and sample requests. */
export const useAnomaly = (id: string) =>
  useApiQuery(['anomalies', 'one', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/anomalies/{id}', { params: { path: { id } }, signal })),
  );

/** Acknowledge (someone is on it) or resolve an anomaly. */
export const useSetAnomalyStatus = () =>
  useApiMutation(
    (api, { id, status }: { id: string; status: 'acknowledged' | 'resolved' }) =>
      unwrap(api.PATCH('/api/v1/anomalies/{id}', { params: { path: { id } }, body: { status } })),
    {
      invalidates: ['anomalies'],
      onSuccess: (a) => toast(a.status === 'resolved' ? 'Anomaly resolved' : 'Anomaly acknowledged'),
    },
  );
