import type { paths } from '../../../api/schema';
import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { useApiQuery } from '../../../api/query';
import type { Schema } from '../../../api/types';

export type QueueItem = Schema<'AnnotationQueueItem'>;
export type Answer = { config_id: string; value: number } | { config_id: string; string_value: string };

export const useCampaigns = () =>
  useApiQuery(['human-evals', 'list'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/human-evals', { params: { query: projectId ? { project_id: projectId } : {} }, signal })),
  );

/** The campaign's score configs, typed (the queue item carries them untyped). */
export const useScoreConfigs = (projectId: string) =>
  useApiQuery(['score-configs', projectId], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/score-configs', { params: { query: { project_id: projectId } }, signal })),
  );

/** The item reserved for me in a campaign (null: nothing left). Reserving is not idempotent: fetched once. */
export const useQueueItem = (campaignId: string) =>
  useApiQuery(
    ['annotation', campaignId],
    ({ api, signal }) =>
      unwrap(api.GET('/api/v1/annotation/queue', { params: { query: { human_eval_id: campaignId } }, signal })),
    {
      staleTime: Infinity,
      refetchOnWindowFocus: false,
      gcTime: 0,
    },
  );

/** Score, skip or release the item; each answers the next item. */
export function useQueueActions(campaignId: string) {
  const score = useApiMutation(
    (api, v: { target_key: string; scores: Answer[] }) =>
      unwrap(api.POST('/api/v1/annotation/queue', { body: { human_eval_id: campaignId, ...v } })),
    { invalidates: ['scores', 'human-evals'] },
  );
  const skip = useApiMutation(
    (api, target_key: string) =>
      unwrap(api.POST('/api/v1/annotation/queue/skip', { body: { human_eval_id: campaignId, target_key } })),
    { invalidates: [] },
  );
  const release = useApiMutation(
    (api, target_key: string) =>
      unwrap(api.POST('/api/v1/annotation/queue/release', { body: { human_eval_id: campaignId, target_key } })),
    { invalidates: [] },
  );
  return { score, skip, release };
}

export type CampaignBody = paths['/api/v1/human-evals']['post']['requestBody']['content']['application/json'];
export type Targets = CampaignBody['targets'];

/** A new review campaign over targets; its items queue for the reviewers at once. */
export const useCreateCampaign = () =>
  useApiMutation((api, body: CampaignBody) => unwrap(api.POST('/api/v1/human-evals', { body })), {
    invalidates: ['human-evals'],
    success: 'Campaign created',
  });

/** More targets for a campaign (the ones it has keep their answers). */
export const useAddItems = () =>
  useApiMutation(
    (api, { id, targets }: { id: string; targets: Targets }) =>
      unwrap(api.POST('/api/v1/human-evals/{id}/items', { params: { path: { id } }, body: { targets } })),
    {
      invalidates: ['human-evals'],
    },
  );

/** Close a campaign (no more reservations) or open it again. */
export const useSetCampaignStatus = () =>
  useApiMutation(
    (api, { id, status }: { id: string; status: 'open' | 'closed' }) =>
      unwrap(api.PATCH('/api/v1/human-evals/{id}', { params: { path: { id } }, body: { status } })),
    {
      invalidates: ['human-evals'],
    },
  );

/** Agreement between reviewers per score config, and with any evaluator that scored the same targets. */
export const useAgreement = (id: string | null) =>
  useApiQuery(
    ['human-evals', 'agreement', id],
    ({ api, signal }) =>
      unwrap(api.GET('/api/v1/human-evals/{id}/agreement', { params: { path: { id: id ?? '' } }, signal })),
    {
      enabled: id !== null,
    },
  );
