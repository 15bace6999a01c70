import { useMemo } from 'react';
import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';
import { requestStats } from '../../../api/stats';
import type { QueryOf } from '../../../api/types';
export type { RequestStats } from '../../../api/stats';

const DAYS = { '24h': 1, '7d': 7, '30d': 30 } as const;
export type Range = keyof typeof DAYS;

/** The start of a range, on the hour, so the query key (and cache) holds for the hour. */
export const rangeStart = (range: Range) =>
  new Date(Math.floor((Date.now() - DAYS[range] * 86_400_000) / 3_600_000) * 3_600_000).toISOString();

/** Totals, series and a breakdown of the request log (`GET /api/v1/stats`, rollups when they answer). */
export function useStats(range: Range, filter: Omit<QueryOf<'/api/v1/stats'>, 'from' | 'project_id'>) {
  const from = useMemo(() => rangeStart(range), [range]);
  return useApiQuery(['stats', { from, ...filter }], ({ api, projectId, signal }) =>
    unwrap(
      api.GET('/api/v1/stats', {
        params: { query: { from, ...filter, ...(projectId ? { project_id: projectId } : {}) } },
        signal,
      }),
    ).then(requestStats),
  );
}

export const useSavedFilters = (view: 'stats' | 'requests' | 'traces' | 'sessions' | 'users') =>
  useApiQuery(['saved-filters', view], ({ api, projectId, signal }) =>
    unwrap(
      api.GET('/api/v1/saved-filters', {
        params: { query: { view, ...(projectId ? { project_id: projectId } : {}) } },
        signal,
      }),
    ),
  );

/** The newest call, polled every 2 s until there is one: the first-run guide waits for it live. */
export const useFirstCall = () =>
  useApiQuery(
    ['requests', 'first'],
    ({ api, projectId, signal }) =>
      unwrap(
        api.GET('/api/v1/requests', {
          params: { query: { limit: 1, ...(projectId ? { project_id: projectId } : {}) } },
          signal,
        }),
      ),
    { refetchInterval: (q) => (q.state.data?.length ? false : 2000) },
  );
