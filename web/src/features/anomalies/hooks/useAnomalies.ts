import { unwrap, unwrapPage } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';
import { requestStats } from '../../../api/stats';
import type { QueryOf } from '../../../api/types';
import { toast } from '../../../lib/toast';
import { dimensionFilter, seriesRange, type Anomaly } from '../lib';

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

/**
 * The anomaly's dimension (its model, its user or the whole project) hour by hour around it, from
 * `GET /stats` in the anomaly's own project.
 */
export function useAnomalySeries(a: Pick<Anomaly, 'id' | 'project_id' | 'window' | 'dimension' | 'dimension_value'>) {
  const query = { project_id: a.project_id, ...seriesRange(a), ...dimensionFilter(a), granularity: 'hour' as const };
  return useApiQuery(['stats', 'anomaly', query], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/stats', { params: { query }, signal })).then(requestStats),
  );
}

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
