import { useInfiniteQuery, useQuery, type Query, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import { useApi, useSession } from '../session/context';
import type { Api } from './client';

/**
 * Data fetching, the one way: every key starts with `['api', { org, project }, resource, …]`, so
 * an organization or project switch is a different query (fetched with the new header) and
 * never shows the previous organization's cached rows.
 */
export interface Scope {
  orgId: string | null;
  projectId: string | null;
}
export interface Ctx extends Scope {
  api: Api;
  signal: AbortSignal;
}

export const scopedKey = (scope: Scope, key: QueryKey): QueryKey => [
  'api',
  { org: scope.orgId, project: scope.projectId },
  ...key,
];

type Extra<T> = Omit<UseQueryOptions<T, Error, T, QueryKey>, 'queryKey' | 'queryFn'>;

/** A GET: `useApiQuery(['traces', search], ({ api, projectId, signal }) => unwrap(api.GET(…)))`. */
export function useApiQuery<T>(key: QueryKey, fn: (ctx: Ctx) => Promise<T>, options?: Extra<T>) {
  const api = useApi();
  const { orgId, projectId } = useSession();
  return useQuery({
    queryKey: scopedKey({ orgId, projectId }, key),
    queryFn: ({ signal }) => fn({ api, orgId, projectId, signal }),
    ...options,
  });
}

/** The previous result while a changed filter loads, but never across an organization or project switch. */
export function sameScopeOnly<D>(key: QueryKey) {
  return (previous: D | undefined, query: Query<D, Error, D, QueryKey> | undefined) =>
    query && JSON.stringify(query.queryKey[1]) === JSON.stringify(key[1]) ? previous : undefined;
}

/**
 * Keyset pages (`next_cursor`), for lists that load more as they scroll; `refetchInterval` polls them (a live tail).
 */
export function useApiPages<T>(
  key: QueryKey,
  fn: (ctx: Ctx & { cursor: string | null }) => Promise<{ data: T[]; next_cursor: string | null }>,
  options: { refetchInterval?: number | false } = {},
) {
  const api = useApi();
  const { orgId, projectId } = useSession();
  const queryKey = scopedKey({ orgId, projectId }, key);
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ signal, pageParam }) => fn({ api, orgId, projectId, signal, cursor: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    placeholderData: sameScopeOnly(queryKey),
    refetchInterval: options.refetchInterval ?? false,
  });
}

/** `project_id` for list queries when a project is chosen in the shell; every project otherwise. */
export const inProject = (projectId: string | null) => (projectId ? { project_id: projectId } : {});
