import { unwrap } from '../../../api/client';
import type { WebhookEvent } from '../../../api/enums';
import { useApiMutation } from '../../../api/mutation';
import { useApiQuery } from '../../../api/query';
import type { paths } from '../../../api/schema';
import { toast } from '../../../lib/toast';

export const useWebhooks = () =>
  useApiQuery(['webhooks', 'list'], ({ api, signal }) => unwrap(api.GET('/api/v1/webhooks', { signal })));

/** The latest deliveries of a webhook (refetched while any is still pending). */
export const useDeliveries = (id: string) =>
  useApiQuery(
    ['webhooks', 'deliveries', id],
    ({ api, signal }) => unwrap(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id } }, signal })),
    {
      refetchInterval: (q) => (q.state.data?.some((d) => d.status === 'pending') ? 3000 : false),
    },
  );

/** A webhook's custom headers, sent with every attempt: a write replaces the set, reads show only the names. */
type WebhookHeaders = Record<string, string>;

export const useCreateWebhook = () =>
  useApiMutation(
    (api, body: { name: string; url: string; events: WebhookEvent[]; headers?: WebhookHeaders }) =>
      unwrap(api.POST('/api/v1/webhooks', { body })),
    { invalidates: ['webhooks'] },
  );

export const useTestWebhook = () =>
  useApiMutation((api, id: string) => unwrap(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })), {
    invalidates: ['webhooks'],
  });

export const usePauseWebhook = () =>
  useApiMutation(
    (api, { id, is_active }: { id: string; is_active: boolean }) =>
      unwrap(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: { is_active } })),
    { invalidates: ['webhooks'] },
  );

export const useDeleteWebhook = () =>
  useApiMutation((api, id: string) => unwrap(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } })), {
    invalidates: ['webhooks'],
    success: 'Webhook deleted',
  });

export interface WebhookPatch {
  name?: string;
  url?: string;
  events?: WebhookEvent[];
  headers?: WebhookHeaders;
}

/** Change a webhook's name, URL, events or (as a whole set) headers; the secret stays. */
export const useUpdateWebhook = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: WebhookPatch }) =>
      unwrap(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body })),
    { invalidates: ['webhooks'], success: 'Webhook saved' },
  );

/** Turn a webhook the service disabled (failing deliveries) back on: clears the reason, counts afresh. */
export const useEnableWebhook = () =>
  useApiMutation(
    (api, id: string) =>
      unwrap(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: { is_active: true } })),
    { invalidates: ['webhooks'], success: 'Webhook enabled again' },
  );

/** A new signing secret (answered in full this once); the previous one signs too for `seconds`. */
export const useRotateSecret = () =>
  useApiMutation(
    (api, { id, seconds }: { id: string; seconds: number }) =>
      unwrap(
        api.POST('/api/v1/webhooks/{id}/secret/rotate', {
          params: { path: { id } },
          body: { previous_expires_in_seconds: seconds },
        }),
      ),
    { invalidates: ['webhooks'], success: 'Secret rotated' },
  );

/** The event kinds a webhook can subscribe to, with what each means (the catalogue; `test` is left out). */
export const useEventTypes = () =>
  useApiQuery(['event-types'], ({ api, signal }) => unwrap(api.GET('/api/v1/event-types', { signal })), {
    staleTime: Infinity,
    select: (rows) => rows.filter((r) => r.subscribable),
  });

const running = (status: string | undefined) => status === 'pending';

/** One delivery record with its attempts, refetched while it is still being delivered. */
export const useDelivery = (id: string, deliveryId: string) =>
  useApiQuery(
    ['webhooks', 'delivery', id, deliveryId],
    ({ api, signal }) =>
      unwrap(
        api.GET('/api/v1/webhooks/{id}/deliveries/{deliveryId}', {
          params: { path: { id, deliveryId } },
          signal,
        }),
      ),
    {
      refetchInterval: (q) => (running(q.state.data?.status) ? 2000 : false),
    },
  );

/** Run a delivery again as a new workflow (409 delivery_in_progress while one runs). */
export const useRedeliver = () =>
  useApiMutation(
    (api, { id, deliveryId }: { id: string; deliveryId: string }) =>
      unwrap(
        api.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
          params: { path: { id, deliveryId } },
        }),
      ),
    {
      invalidates: ['webhooks'],
      onSuccess: (r) => toast(`Redelivery ${r.redelivery} started (attempts from #${r.first_attempt})`),
    },
  );

export type RecoverBody = paths['/api/v1/webhooks/{id}/recover']['post']['requestBody']['content']['application/json'];

/** The recoveries of a webhook, newest first (refetched while the newest runs). */
export const useRecoveries = (id: string) =>
  useApiQuery(['webhooks', 'recoveries', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/webhooks/{id}/recoveries', { params: { path: { id }, query: { limit: 5 } }, signal })),
  );

/** One recovery's progress, polled every 2 s while it runs. */
export const useRecovery = (id: string, rid: string) =>
  useApiQuery(
    ['webhooks', 'recovery', id, rid],
    ({ api, signal }) =>
      unwrap(api.GET('/api/v1/webhooks/{id}/recoveries/{rid}', { params: { path: { id, rid } }, signal })),
    {
      refetchInterval: (q) => (q.state.data?.status === 'running' ? 2000 : false),
    },
  );

/** Send once more every failed or dead-lettered delivery created in a window. */
export const useRecover = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: RecoverBody }) =>
      unwrap(api.POST('/api/v1/webhooks/{id}/recover', { params: { path: { id } }, body })),
    { invalidates: ['webhooks'], success: 'Recovery started' },
  );

export const useCancelRecovery = () =>
  useApiMutation(
    (api, { id, rid }: { id: string; rid: string }) =>
      unwrap(api.POST('/api/v1/webhooks/{id}/recoveries/{rid}/cancel', { params: { path: { id, rid } } })),
    { invalidates: ['webhooks'], success: 'Recovery cancelled' },
  );
