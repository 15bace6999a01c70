import type { paths } from '../../../api/schema';
import { unwrap, unwrapPage } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiPages, useApiQuery } from '../../../api/query';
import type { Schema } from '../../../api/types';
import { ITEM_STATUSES } from '../search';

export type ExperimentBody = paths['/api/v1/experiments']['post']['requestBody']['content']['application/json'];
export const LIVE_MS = 1500;

/** Newest first; polled while an experiment runs, so its progress moves on the page. */
export const useExperiments = () =>
  useApiQuery(
    ['experiments', 'list'],
    ({ api, projectId, signal }) =>
      unwrap(api.GET('/api/v1/experiments', { params: { query: inProject(projectId) }, signal })),
    {
      refetchInterval: (q) => (q.state.data?.some((x) => x.status === 'running') ? LIVE_MS : false),
    },
  );

/** 2–5 experiments side by side, the first as the baseline; nothing is fetched for fewer than 2. */
export const useComparison = (ids: string[]) =>
  useApiQuery(
    ['experiments', 'compare', ids],
    ({ api, signal }) =>
      unwrap(api.GET('/api/v1/experiments/compare', { params: { query: { ids: ids.join(',') } }, signal })),
    { enabled: ids.length >= 2 },
  );

/** Starts an experiment: a prompt subject runs as a workflow, item by item. */
export const useStartExperiment = () =>
  useApiMutation((api, body: ExperimentBody) => unwrap(api.POST('/api/v1/experiments', { body })), {
    invalidates: ['experiments'],
    success: 'Experiment started',
  });

export type PromptExperimentBody =
  paths['/api/v1/prompt-experiments']['post']['requestBody']['content']['application/json'];

/** Prompt experiments with their grids (items × variants, winners); polled while one runs. */
export const usePromptExperiments = () =>
  useApiQuery(
    ['prompt-experiments', 'list'],
    ({ api, projectId, signal }) =>
      unwrap(api.GET('/api/v1/prompt-experiments', { params: { query: inProject(projectId) }, signal })),
    {
      refetchInterval: (q) => (q.state.data?.some((x) => x.status === 'running') ? LIVE_MS : false),
    },
  );

/** Starts a prompt experiment: one experiment per variant over the same items. */
export const useStartPromptExperiment = () =>
  useApiMutation((api, body: PromptExperimentBody) => unwrap(api.POST('/api/v1/prompt-experiments', { body })), {
    invalidates: ['prompt-experiments', 'experiments'],
    success: 'Prompt experiment started',
  });

/** Stops a running experiment: pending items are not run; finished ones and their scores stay. */
export const useCancelExperiment = () =>
  useApiMutation(
    (api, id: string) => unwrap(api.POST('/api/v1/experiments/{id}/cancel', { params: { path: { id } } })),
    { invalidates: ['experiments', 'prompt-experiments'], success: 'Experiment cancelled' },
  );

/** Stops every variant of a running prompt experiment. */
export const useCancelPromptExperiment = () =>
  useApiMutation(
    (api, id: string) => unwrap(api.POST('/api/v1/prompt-experiments/{id}/cancel', { params: { path: { id } } })),
    { invalidates: ['prompt-experiments', 'experiments'], success: 'Prompt experiment cancelled' },
  );

type ItemStatus = Schema<'ExperimentItem'>['status'];
// The list in search.ts must name exactly the API's statuses (a compile error otherwise).
type Exactly<L extends readonly string[]> = [ItemStatus] extends [L[number]] ? L : never;
export const STATUSES: Exactly<typeof ITEM_STATUSES> = ITEM_STATUSES;

/** One experiment, polled while it runs so its progress and means move. */
export const useExperiment = (id: string) =>
  useApiQuery(
    ['experiments', 'one', id],
    ({ api, signal }) => unwrap(api.GET('/api/v1/experiments/{id}', { params: { path: { id } }, signal })),
    {
      refetchInterval: (q) => (q.state.data?.status === 'running' ? LIVE_MS : false),
    },
  );

/** Its item runs with outputs and scores, 200 a page (keyset cursor), optionally of one status; polled while `live`. */
export const useExperimentItems = (id: string, status: ItemStatus | undefined, live: boolean) =>
  useApiPages(
    ['experiments', 'items', id, status ?? 'all'],
    ({ api, cursor, signal }) =>
      unwrapPage(
        api.GET('/api/v1/experiments/{id}/items', {
          params: { path: { id }, query: { limit: 200, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } },
          signal,
        }),
      ),
    { refetchInterval: live ? LIVE_MS : false },
  );
