import type { paths } from '../../../api/schema';
import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { useApiQuery } from '../../../api/query';

export const usePromptList = () =>
  useApiQuery(['prompts', 'list'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/prompts', { params: { query: projectId ? { project_id: projectId } : {} }, signal })),
  );

export const usePrompt = (id: string) =>
  useApiQuery(['prompts', 'one', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/prompts/{id}', { params: { path: { id } }, signal })),
  );

/** Labels move: a label set here leaves the version that held it. */
export const useSetLabels = (id: string, projectId: string) =>
  useApiMutation(
    (api, { version, labels }: { version: number; labels: string[] }) =>
      unwrap(
        api.PUT('/api/v1/prompts/{id}/versions/{version}/labels', {
          params: { path: { id, version: String(version) }, query: { project_id: projectId } },
          body: { labels },
        }),
      ),
    { invalidates: ['prompts'], success: 'Labels saved' },
  );

export type PromptBody = NonNullable<paths['/api/v1/prompts']['post']['requestBody']>['content']['application/json'];
export type VersionBody = NonNullable<
  paths['/api/v1/prompts/{id}/versions']['post']['requestBody']
>['content']['application/json'];

/** A new prompt, with its first version when one is given. */
export const useCreatePrompt = () =>
  useApiMutation((api, body: PromptBody) => unwrap(api.POST('/api/v1/prompts', { body })), {
    invalidates: ['prompts'],
    success: 'Prompt created',
  });

/** The next immutable version of a prompt (labels named here move to it). */
export const useAddVersion = (id: string, projectId: string) =>
  useApiMutation(
    (api, body: VersionBody) =>
      unwrap(
        api.POST('/api/v1/prompts/{id}/versions', { params: { path: { id }, query: { project_id: projectId } }, body }),
      ),
    { invalidates: ['prompts'] },
  );

/** One version, for the playground to start from. */
export const usePromptVersion = (id: string | undefined, version: string | undefined) =>
  useApiQuery(
    ['prompts', 'version', id, version],
    ({ api, signal }) =>
      unwrap(
        api.GET('/api/v1/prompts/{id}/versions/{version}', {
          params: { path: { id: id ?? '', version: version ?? 'latest' } },
          signal,
        }),
      ),
    { enabled: Boolean(id) },
  );
