import { unwrap } from '../../../api/client';
import type { WebhookEvent } from '../../../api/enums';
import { useApiMutation } from '../../../api/mutation';
import { useApiQuery } from '../../../api/query';

export const useWebhooks = () => useApiQuery(['webhooks', 'list'], ({ api, signal }) => unwrap(api.GET('/api/v1/webhooks', { signal })));

/** The latest deliveries of a webhook (refetched while any is still pending). */
export const useDeliveries = (id: string) =>
  useApiQuery(['webhooks', 'deliveries', id], ({ api, signal }) => unwrap(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id } }, signal })), {
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === 'pending') ? 3000 : false),
  });

export const useCreateWebhook = () =>
  useApiMutation((api, body: { name: string; url: string; events: WebhookEvent[] }) => unwrap(api.POST('/api/v1/webhooks', { body })), { invalidates: ['webhooks'] });

export const useTestWebhook = () =>
  useApiMutation((api, id: string) => unwrap(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })), { invalidates: ['webhooks'] });

export const usePauseWebhook = () =>
  useApiMutation((api, { id, is_active }: { id: string; is_active: boolean }) => unwrap(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: { is_active } })), { invalidates: ['webhooks'] });

export const useDeleteWebhook = () =>
  useApiMutation((api, id: string) => unwrap(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } })), { invalidates: ['webhooks'], success: 'Webhook deleted' });
