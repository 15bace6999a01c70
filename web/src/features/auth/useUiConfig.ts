import { unwrap } from '../../api/client';
import { useApiQuery } from '../../api/query';

/** Which sign-in to offer and where the Temporal Web UI is (public, no secrets). */
export const useUiConfig = () =>
  useApiQuery(['ui-config'], ({ api, signal }) => unwrap(api.GET('/api/v1/ui-config', { signal })), {
    staleTime: Infinity,
  });
