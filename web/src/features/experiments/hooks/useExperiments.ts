import type { paths } from '../../../api/schema';
import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';

export type ExperimentBody = paths['/api/v1/experiments']['post']['requestBody']['content']['application/json'];
export const LIVE_MS = 1500;

/** Newest first; polled while an experiment runs, so its progress moves on the page. */
export const useExperiments = () =>
  useApiQuery(['experiments', 'list'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/experiments', { params: { query: inProject(projectId) }, signal })), {
    refetchInterval: (q) => (q.state.data?.some((x) => x.status === 'running') ? LIVE_MS : false),
  });

/** 2–5 experiments side by side, the first as the baseline; nothing is fetched for fewer than 2. */
export const useComparison = (ids: string[]) =>
  useApiQuery(['experiments', 'compare', ids], ({ api, signal }) => unwrap(api.GET('/api/v1/experiments/compare', { params: { query: { ids: ids.join(',') } }, signal })), { enabled: ids.length >= 2 });

/** Starts an experiment: a prompt subject runs as a workflow, item by item. */
export const useStartExperiment = () =>
  useApiMutation((api, body: ExperimentBody) => unwrap(api.POST('/api/v1/experiments', { body })), { invalidates: ['experiments'], success: 'Experiment started' });

export type PromptExperimentBody = paths['/api/v1/prompt-experiments']['post']['requestBody']['content']['application/json'];

/** Prompt experiments with their grids (items × variants, winners); polled while one runs. */
export const usePromptExperiments = () =>
  useApiQuery(['prompt-experiments', 'list'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/prompt-experiments', { params: { query: inProject(projectId) }, signal })), {
    refetchInterval: (q) => (q.state.data?.some((x) => x.status === 'running') ? LIVE_MS : false),
  });

/** Starts a prompt experiment: one experiment per variant over the same items. */
export const useStartPromptExperiment = () =>
  useApiMutation((api, body: PromptExperimentBody) => unwrap(api.POST('/api/v1/prompt-experiments', { body })), { invalidates: ['prompt-experiments', 'experiments'], success: 'Prompt experiment started' });

/** Stops a running experiment: pending items are not run; finished ones and their scores stay. */
export const useCancelExperiment = () =>
  useApiMutation((api, id: string) => unwrap(api.POST('/api/v1/experiments/{id}/cancel', { params: { path: { id } } })), { invalidates: ['experiments', 'prompt-experiments'], success: 'Experiment cancelled' });

/** Stops every variant of a running prompt experiment. */
export const useCancelPromptExperiment = () =>
  useApiMutation((api, id: string) => unwrap(api.POST('/api/v1/prompt-experiments/{id}/cancel', { params: { path: { id } } })), { invalidates: ['prompt-experiments', 'experiments'], success: 'Prompt experiment cancelled' });
