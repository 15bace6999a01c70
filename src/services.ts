import type { AppContext } from './context';

/**
 * The feature services of the api role, built once per runtime from the shared context and handed
 * to the routes (src/routes.ts). Tests reach them through `runtime.services`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

export function buildServices(_ctx: AppContext): Services {
  return {};
}
