import { useMemo } from 'react';
import { unwrap, unwrapPage } from '../../../api/client';
import { useApiPages, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';
import type { AttemptRange, HealthWindow, WebhooksSearch } from '../search';

export type AttemptFilter = Pick<QueryOf<'/api/v1/webhooks/{id}/attempts'>, 'status' | 'http_status' | 'event_type'>;

/** Attempts per page of the log: the API's default, so a busy endpoint's first screen is one request. */
export const ATTEMPTS_PAGE = 50;
const HOURS: Record<AttemptRange, number> = { '1h': 1, '24h': 24, '7d': 7 * 24, '30d': 30 * 24 };

/** The URL's filters as the API's query; a range preset becomes `since`, fixed when the preset is picked. */
export function useAttemptFilter(s: WebhooksSearch) {
  const { status, http_status, event_type, range } = s;
  const since = useMemo(
    () => (range ? new Date(Date.now() - HOURS[range] * 3600_000).toISOString() : undefined),
    [range],
  );
  return useMemo(() => {
    const f: AttemptFilter & { since?: string } = {};
    if (status) f.status = status;
    if (http_status) f.http_status = http_status;
    if (event_type) f.event_type = event_type;
    if (since) f.since = since;
    return f;
  }, [status, http_status, event_type, since]);
}

/** Every attempt of a webhook's deliveries, newest first, in keyset pages (`next_cursor`). */
export const useAttemptPages = (id: string, filter: AttemptFilter & { since?: string }) =>
  useApiPages(['webhooks', 'attempts', id, filter], ({ api, cursor, signal }) =>
    unwrapPage(
      api.GET('/api/v1/webhooks/{id}/attempts', {
        params: { path: { id }, query: { ...filter, limit: ATTEMPTS_PAGE, ...(cursor ? { cursor } : {}) } },
        signal,
      }),
    ),
  );

/** Delivery counts, success rate and attempt durations of the deliveries created in a window. */
export const useWebhookStats = (id: string, window: HealthWindow) =>
  useApiQuery(['webhooks', 'stats', id, window], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/webhooks/{id}/stats', { params: { path: { id }, query: { window } }, signal })),
  );
