import type { RequestFilter } from '../filters/request-filter';
import { requestFilterOf as storedRequestFilter } from '../filters/stored';
import type { GroupBy } from '../analytics/plan';
import type { AlertFilter } from './schemas';

/**
 * A rule's stored filter as the analytics filter language's RequestFilter (the non-request alert types' fields left
 * out).
 */
export function requestFilterOf(f: AlertFilter): RequestFilter {
  const { measure: _m, severity: _s, finding_kind: _k, ...rest } = f;
  return storedRequestFilter(rest);
}

export function groupByOf(g: string | null): GroupBy | null {
  if (!g) return null;
  if (g.startsWith('property:')) return { kind: 'property', name: g.slice('property:'.length).toLowerCase() };
  return { kind: 'dim', dim: g as Exclude<GroupBy & { kind: 'dim' }, never>['dim'] };
}
