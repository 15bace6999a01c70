import { unwrap, unwrapPage } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { useApiPages, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';
import type { paths } from '../../../api/schema';

type Filter = Omit<QueryOf<'/api/v1/requests'>, 'cursor' | 'limit' | 'project_id'>;

/**
 * The request log, newest first, 200 rows a page (keyset cursor). `live`: the loaded pages are
 * fetched again every few seconds, so new calls appear at the top (the page pauses it while the
 * person scrolls or points at the list).
 */
export const useRequestPages = (filter: Filter, live = false) =>
  useApiPages(
    ['requests', 'list', filter],
    ({ api, projectId, cursor, signal }) =>
      unwrapPage(
        api.GET('/api/v1/requests', {
          params: {
            query: {
              ...filter,
              limit: 200,
              ...(cursor ? { cursor } : {}),
              ...(projectId ? { project_id: projectId } : {}),
            },
          },
          signal,
        }),
      ),
    { refetchInterval: live ? LIVE_MS : false },
  );
export const LIVE_MS = 3000;

/** One request with its bodies (as stored, masked) and scores. */
export const useRequest = (id: string) =>
  useApiQuery(['requests', 'one', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/requests/{id}', { params: { path: { id } }, signal })),
  );

export type ScoreBody = NonNullable<paths['/api/v1/scores']['post']['requestBody']>['content']['application/json'];
export type ItemBody = NonNullable<
  paths['/api/v1/datasets/{id}/items']['post']['requestBody']
>['content']['application/json']['items'][number];

/** A score on a request (POST /scores): the request's detail shows it once written. */
export const useAddScore = () =>
  useApiMutation((api, body: ScoreBody) => unwrap(api.POST('/api/v1/scores', { body })), {
    invalidates: ['requests', 'scores'],
    success: 'Score added',
  });

/** The request as a dataset item (its id names the request, so adding it twice updates one item). */
export const useAddToDataset = () =>
  useApiMutation(
    (api, v: { datasetId: string; projectId: string; item: ItemBody }) =>
      unwrap(
        api.POST('/api/v1/datasets/{id}/items', {
          params: { path: { id: v.datasetId }, query: { project_id: v.projectId } },
          body: { items: [v.item] },
        }),
      ),
    { invalidates: ['datasets'] },
  );
