import { AsyncLocalStorage } from 'node:async_hooks';
import type { Span, Trace } from './handles';

/**
 * The trace (and innermost span) the current async call chain runs in. This is how
 * `withSpan` nests without passing handles around, and how the integrations find where
 * to record.
 */
export interface ActiveScope {
  /** The Recorder (one per client) the scope belongs to. */
  owner: object;
  trace: Trace;
  span?: Span;
}

export const activeScope = new AsyncLocalStorage<ActiveScope>();

export function currentScope(): ActiveScope | undefined {
  return activeScope.getStore();
}
