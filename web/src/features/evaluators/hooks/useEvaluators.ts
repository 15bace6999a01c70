import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';
import type { paths } from '../../../api/schema';

export type EvaluatorBody = paths['/api/v1/evaluators']['post']['requestBody']['content']['application/json'];
export type EvaluatorPatch = NonNullable<
  paths['/api/v1/evaluators/{id}']['patch']['requestBody']
>['content']['application/json'];
export type ScoreConfigBody = paths['/api/v1/score-configs']['post']['requestBody']['content']['application/json'];
export type ScoreConfigPatch = NonNullable<
  paths['/api/v1/score-configs/{id}']['patch']['requestBody']
>['content']['application/json'];

export const useEvaluators = () =>
  useApiQuery(['evaluators', 'list'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/evaluators', { params: { query: inProject(projectId) }, signal })),
  );

export const useCreateEvaluator = () =>
  useApiMutation((api, body: EvaluatorBody) => unwrap(api.POST('/api/v1/evaluators', { body })), {
    invalidates: ['evaluators'],
    success: 'Evaluator created',
  });
export const useUpdateEvaluator = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: EvaluatorPatch }) =>
      unwrap(api.PATCH('/api/v1/evaluators/{id}', { params: { path: { id } }, body })),
    { invalidates: ['evaluators'], success: 'Evaluator saved' },
  );
export const useDeleteEvaluator = () =>
  useApiMutation((api, id: string) => unwrap(api.DELETE('/api/v1/evaluators/{id}', { params: { path: { id } } })), {
    invalidates: ['evaluators'],
    success: 'Evaluator deleted',
  });

/** Score configs (every type, archived ones too: the list shows and restores them). */
export const useAllScoreConfigs = () =>
  useApiQuery(['score-configs', 'all'], ({ api, projectId, signal }) =>
    unwrap(
      api.GET('/api/v1/score-configs', {
        params: { query: { ...inProject(projectId), include_archived: 'true' } },
        signal,
      }),
    ),
  );
export const useCreateScoreConfig = () =>
  useApiMutation((api, body: ScoreConfigBody) => unwrap(api.POST('/api/v1/score-configs', { body })), {
    invalidates: ['score-configs'],
    success: 'Score config created',
  });
export const useUpdateScoreConfig = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: ScoreConfigPatch }) =>
      unwrap(api.PATCH('/api/v1/score-configs/{id}', { params: { path: { id } }, body })),
    { invalidates: ['score-configs'], success: 'Score config saved' },
  );

export type PreviewBody = paths['/api/v1/evaluators/preview']['post']['requestBody']['content']['application/json'];

/** An evaluator definition run once on a request (writes nothing; a judge's call is a request row). */
export const usePreviewEvaluator = () =>
  useApiMutation((api, body: PreviewBody) => unwrap(api.POST('/api/v1/evaluators/preview', { body })), {
    invalidates: ['requests'],
  });

/** The project's latest requests, with bodies for an input excerpt: what a preview picks from. */
export const useRecentRequests = (enabled: boolean) =>
  useApiQuery(
    ['requests', 'recent-for-preview'],
    ({ api, projectId, signal }) =>
      unwrap(
        api.GET('/api/v1/requests', {
          params: { query: { ...inProject(projectId), limit: 20, include_bodies: 'true' } },
          signal,
        }),
      ),
    { enabled },
  );
