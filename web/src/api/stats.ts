import type { Schema } from './types';

/**
 * `GET /api/v1/stats` (and a user's `stats`) answers one shape per `view` (requests, traces,
 * spans, scores) without a tag on the variants: these narrow an answer of the request view
 * (the default) to its fields, and throw on any other.
 */
type Stats = Schema<'Stats'>;
type Item = NonNullable<Stats['breakdown']>['items'][number];
export type RequestTotals = Extract<Stats['totals'], { requests: number }>;
export type RequestPoint = Extract<Stats['series'][number], { requests: number }>;
export type RequestItem = Extract<Item, { requests: number }>;
export interface RequestStats {
  totals: RequestTotals;
  series: RequestPoint[];
  breakdown: { group_by: string; items: RequestItem[] } | null;
}

const isRequestPoint = (p: Stats['series'][number]): p is RequestPoint => 'requests' in p;
const isRequestItem = (p: Item): p is RequestItem => 'requests' in p;

export function requestStats(s: Stats): RequestStats {
  if (!('requests' in s.totals)) throw new Error(`expected request statistics, got view ${s.view}`);
  const b = s.breakdown;
  // An array of a union, read as a union of arrays: every element is checked by the guard.
  return {
    totals: s.totals,
    series: s.series.filter(isRequestPoint),
    breakdown: b && { group_by: b.group_by, items: (b.items as Item[]).filter(isRequestItem) },
  };
}
