import type { RequestFilter } from '../analytics/filters';
import { checkFilter } from '../analytics/filters';
import type { GroupBy } from '../analytics/plan';
import type { AlertFilter } from './schemas';

/** A rule's stored filter as the analytics filter language's RequestFilter (property names lower-cased as on requests). */
export function requestFilterOf(f: AlertFilter): RequestFilter {
  const { property, measure: _m, severity: _s, finding_kind: _k, ...rest } = f;
  const out: RequestFilter = { ...rest };
  if (property?.length)
    out.property = property.map((p) => {
      const at = p.indexOf(':');
      return { name: p.slice(0, at).toLowerCase(), value: p.slice(at + 1) };
    });
  checkFilter(out);
  return out;
}

export function groupByOf(g: string | null): GroupBy | null {
  if (!g) return null;
  if (g.startsWith('property:')) return { kind: 'property', name: g.slice('property:'.length).toLowerCase() };
  return { kind: 'dim', dim: g as Exclude<GroupBy & { kind: 'dim' }, never>['dim'] };
}
