import type { Granularity } from './buckets';
import { hourAligned } from './buckets';
import type { RequestFilter } from '../filters/request-filter';
import { ROLLUP_DIMS, type RollupDim } from './dims';

/** Filters the hourly rollups can answer, with the rollup dimension each maps to. */
const ROLLUP_FILTERS = {
  model: 'model',
  provider: 'provider',
  api_key_id: 'api_key',
  prompt_version_id: 'prompt_version',
  cache_hit: 'cache_hit',
  streamed: 'streamed',
  user_id: 'user',
} as const;
const isRollupFilter = (field: string): field is keyof typeof ROLLUP_FILTERS => field in ROLLUP_FILTERS;

/** The filter's fields beyond the time range and the project, by name. */
function activeFields(f: RequestFilter): string[] {
  return Object.entries(f)
    .filter(([k, v]) => v !== undefined && !['project_id', 'from', 'to'].includes(k))
    .map(([k]) => k);
}

/** A dimension to group by: a built-in one or a custom property. */
export type GroupBy =
  | { kind: 'dim'; dim: Exclude<RollupDim, '' | 'cache_hit' | 'streamed'> | 'session' }
  | { kind: 'property'; name: string };
export type OrderBy = 'requests' | 'cost_usd' | 'total_tokens' | 'errors';

export interface StatsQuery {
  projectIds: string[];
  filter: RequestFilter;
  /** Resolved range [from, to), ISO. */
  from: string;
  to: string;
  granularity: Granularity;
  tz: string;
  groupBy: GroupBy | null;
  top: number;
  orderBy: OrderBy;
  /** `raw` forces the raw rows (exact unique counts under any filter). */
  source: 'auto' | 'raw';
}

/**
 * The rollup rows a query reads: one dimension (a built-in one or a rolled-up property), optionally one value of it.
 */
export interface RollupPlan {
  dim: RollupDim | `property:${string}`;
  value: string | null;
}

/** The custom property names a query filters or groups by (the rollups answer registered ones). */
export function queryProperties(q: StatsQuery): string[] {
  return [...(q.filter.property ?? []).map((p) => p.name), ...(q.groupBy?.kind === 'property' ? [q.groupBy.name] : [])];
}

/**
 * Chooses the rollups when they answer the query exactly: whole-hour buckets and range, at most
 * one dimension among the filters and the grouping, and that dimension kept in the rollups (a
 * custom property only when `rolledUp`: registered for every project in scope, property-rollups.ts).
 * Everything else (other custom properties, status classes, cost or latency ranges, two dimensions
 * at once) reads the raw rows, through the indexes of the request log.
 */
export function planRollup(q: StatsQuery, rolledUp: ReadonlySet<string> = new Set()): RollupPlan | null {
  if (q.source === 'raw') return null;
  if (!hourAligned(q.tz, Date.parse(q.from), Date.parse(q.to), q.granularity)) return null;
  const fields = activeFields(q.filter);
  if (fields.length > 1) return null;
  let filterDim: RollupPlan | null = null;
  if (fields.length === 1) {
    const field = fields[0]!;
    const f = q.filter;
    const prop = q.filter.property;
    if (field === 'status' && /^\d+$/.test(String(f.status)))
      filterDim = { dim: 'status_code', value: String(f.status) };
    else if (field === 'property' && prop?.length === 1 && rolledUp.has(prop[0]!.name))
      filterDim = { dim: `property:${prop[0]!.name}`, value: prop[0]!.value };
    else if (isRollupFilter(field)) filterDim = { dim: ROLLUP_FILTERS[field], value: String(f[field]) };
    else return null;
  }
  // Sessions and unregistered custom properties are high-cardinality: raw rows, through their indexes.
  const groupDim = !q.groupBy
    ? null
    : q.groupBy.kind === 'property'
      ? rolledUp.has(q.groupBy.name)
        ? (`property:${q.groupBy.name}` as const)
        : null
      : q.groupBy.dim;
  if (
    q.groupBy &&
    (groupDim === null || (!groupDim.startsWith('property:') && !(ROLLUP_DIMS as readonly string[]).includes(groupDim)))
  )
    return null;
  if (groupDim && filterDim && filterDim.dim !== groupDim) return null;
  if (groupDim) return { dim: groupDim as RollupPlan['dim'], value: filterDim?.value ?? null };
  return filterDim ?? { dim: '', value: null };
}
