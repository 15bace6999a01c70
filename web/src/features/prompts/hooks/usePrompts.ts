import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { useApiQuery } from '../../../api/query';

export const usePromptList = () =>
  useApiQuery(['prompts', 'list'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/prompts', { params: { query: projectId ? { project_id: projectId } : {} }, signal })));

export const usePrompt = (id: string) =>
  useApiQuery(['prompts', 'one', id], ({ api, signal }) => unwrap(api.GET('/api/v1/prompts/{id}', { params: { path: { id } }, signal })));

/** Labels move: a label set here leaves the version that held it. */
export const useSetLabels = (id: string, projectId: string) =>
  useApiMutation(
    (api, { version, labels }: { version: number; labels: string[] }) =>
      unwrap(api.PUT('/api/v1/prompts/{id}/versions/{version}/labels', { params: { path: { id, version: String(version) }, query: { project_id: projectId } }, body: { labels } })),
    { invalidates: ['prompts'], success: 'Labels saved' },
  );
