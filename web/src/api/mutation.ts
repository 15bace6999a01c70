import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi, useSession } from '../session/context';
import { toast } from '../lib/toast';
import type { Api } from './client';

/**
 * A write. `invalidates` names the resources (the first key part after the scope) whose queries
 * go stale on success, in every project of the organization; `success` is a confirmation toast.
 * Pages show `mutation.error` next to the control that failed.
 */
export function useApiMutation<V, R>(
  fn: (api: Api, vars: V) => Promise<R>,
  options: { invalidates: string[]; success?: string; onSuccess?: (r: R, vars: V) => void },
) {
  const api = useApi();
  const { orgId } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (vars: V) => fn(api, vars),
    onSuccess: async (r, vars) => {
      options.onSuccess?.(r, vars);
      if (options.success) toast(options.success);
      await Promise.all(
        options.invalidates.map((resource) =>
          client.invalidateQueries({ queryKey: ['api', { org: orgId }, resource] }),
        ),
      );
    },
  });
}
