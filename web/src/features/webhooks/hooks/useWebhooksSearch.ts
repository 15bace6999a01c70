import { useNavigate, useSearch } from '@tanstack/react-router';
import { useCallback } from 'react';
import { clean } from '../../../lib/search';
import { webhooksSearch, type WebhooksSearch } from '../search';

/**
 * The page's filters, read from the URL through `webhooksSearch` (a bad value is dropped) and
 * written back with `replace`, as the other pages' typed search params are.
 */
export function useWebhooksSearch(): [WebhooksSearch, (patch: Partial<WebhooksSearch>) => void] {
  const raw = useSearch({ strict: false });
  const navigate = useNavigate();
  const current = webhooksSearch(raw as Record<string, unknown>);
  const set = useCallback(
    (patch: Partial<WebhooksSearch>) =>
      void navigate({
        to: '/webhooks',
        search: (s) => clean({ ...webhooksSearch(s as Record<string, unknown>), ...patch }),
        replace: true,
      }),
    [navigate],
  );
  return [current, set];
}
