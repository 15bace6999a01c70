/**
 * Writes this process made to tables that others memoise (the proxy's key, provider-key and
 * rate-limit caches). Services announce them right after commit, so this process's caches drop
 * stale entries before the API answers; other processes hear the same change through the
 * database triggers' NOTIFY (migration 004b).
 */
export type MemoisedTable = 'api_keys' | 'provider_keys' | 'rate_limits';

export function createLocalChanges() {
  const subscribers = new Map<MemoisedTable, Set<() => void>>();
  return {
    changed(table: MemoisedTable): void {
      for (const fn of subscribers.get(table) ?? []) fn();
    },
    /** Returns the unsubscribe function. */
    on(table: MemoisedTable, fn: () => void): () => void {
      let set = subscribers.get(table);
      if (!set) subscribers.set(table, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
  };
}

export type LocalChanges = ReturnType<typeof createLocalChanges>;
