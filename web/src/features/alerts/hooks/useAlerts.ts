import { unwrap, unwrapPage } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { useApiQuery } from '../../../api/query';
import type { paths } from '../../../api/schema';

export type NewAlert = paths['/api/v1/alerts']['post']['requestBody']['content']['application/json'];

export const useAlerts = () =>
  useApiQuery(['alerts', 'list'], ({ api, signal }) => unwrap(api.GET('/api/v1/alerts', { signal })));

/** A rule's state changes, newest first. */
export const useAlertEvents = (id: string) =>
  useApiQuery(['alerts', 'events', id], ({ api, signal }) =>
    unwrapPage(api.GET('/api/v1/alerts/{id}/events', { params: { path: { id }, query: { limit: 50 } }, signal })).then(
      (p) => p.data,
    ),
  );

export const useCreateAlert = () =>
  useApiMutation((api, body: NewAlert) => unwrap(api.POST('/api/v1/alerts', { body })), {
    invalidates: ['alerts'],
    success: 'Alert rule created',
  });

export type AlertPatch = paths['/api/v1/alerts/{id}']['patch']['requestBody']['content']['application/json'];

export const useUpdateAlert = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: AlertPatch }) =>
      unwrap(api.PATCH('/api/v1/alerts/{id}', { params: { path: { id } }, body })),
    { invalidates: ['alerts'], success: 'Alert rule saved' },
  );

export const usePauseAlert = () =>
  useApiMutation(
    (api, { id, is_active }: { id: string; is_active: boolean }) =>
      unwrap(api.PATCH('/api/v1/alerts/{id}', { params: { path: { id } }, body: { is_active } })),
    { invalidates: ['alerts'] },
  );

export const useDeleteAlert = () =>
  useApiMutation((api, id: string) => unwrap(api.DELETE('/api/v1/alerts/{id}', { params: { path: { id } } })), {
    invalidates: ['alerts'],
    success: 'Alert rule deleted',
  });
