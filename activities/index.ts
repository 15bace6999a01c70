import type { ActivityDeps } from './deps';
import { systemActivities } from './system';

export type { ActivityDeps } from './deps';

/** Every activity the worker registers, bound to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...systemActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
