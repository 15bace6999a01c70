import type { paths } from '../api/schema';
import { unwrap } from '../api/client';
import { useApiMutation } from '../api/mutation';
import { useApiQuery } from '../api/query';

export type ExportBody = paths['/api/v1/exports']['post']['requestBody']['content']['application/json'];
const DONE = new Set(['completed', 'failed', 'cancelled', 'expired']);

/** Starts an export of every row matching a list's filter (a workflow writes the file). */
export const useStartListExport = () =>
  useApiMutation((api, body: ExportBody) => unwrap(api.POST('/api/v1/exports', { body })), {
    invalidates: ['exports'],
  });

/** One export, polled every second until it has finished (its rows and progress move meanwhile). */
export const useExportStatus = (id: string | null) =>
  useApiQuery(
    ['exports', 'one', id],
    ({ api, signal }) => unwrap(api.GET('/api/v1/exports/{id}', { params: { path: { id: id ?? '' } }, signal })),
    {
      enabled: id !== null,
      refetchInterval: (q) => (q.state.data && DONE.has(q.state.data.status) ? false : 1000),
    },
  );
