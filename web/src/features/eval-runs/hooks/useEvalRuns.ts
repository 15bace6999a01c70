import { unwrap, unwrapPage } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';
import type { paths } from '../../../api/schema';

export type EvalRunBody = paths['/api/v1/eval-runs']['post']['requestBody']['content']['application/json'];
const live = (s: string | undefined) => s === 'running' || s === 'pending';

export const useEvalRuns = () =>
  useApiQuery(
    ['eval-runs', 'list'],
    ({ api, projectId, signal }) =>
      unwrap(api.GET('/api/v1/eval-runs', { params: { query: inProject(projectId) }, signal })),
    {
      // A run in progress moves: poll while any is.
      refetchInterval: (q) => (q.state.data?.some((r) => live(r.status)) ? 2000 : false),
    },
  );

/** A run's results (first 200), polled while the run is live. */
export const useEvalRunResults = (id: string, running: boolean) =>
  useApiQuery(
    ['eval-runs', 'results', id],
    ({ api, signal }) =>
      unwrapPage(
        api.GET('/api/v1/eval-runs/{id}/results', { params: { path: { id }, query: { limit: 200 } }, signal }),
      ),
    {
      refetchInterval: running ? 2000 : false,
    },
  );

export const useStartEvalRun = () =>
  useApiMutation((api, body: EvalRunBody) => unwrap(api.POST('/api/v1/eval-runs', { body })), {
    invalidates: ['eval-runs'],
    success: 'Eval run started',
  });
export const useCancelEvalRun = () =>
  useApiMutation((api, id: string) => unwrap(api.POST('/api/v1/eval-runs/{id}/cancel', { params: { path: { id } } })), {
    invalidates: ['eval-runs'],
    success: 'Eval run cancelled',
  });
