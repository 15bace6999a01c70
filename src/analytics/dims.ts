/**
 * Dimensions with their own hourly rollup rows ('' is the project total); the SQL that expands a
 * request row into them is `rollup_cells` (migrations/007b_analytics_fold.ts). Per-user rows keep
 * sums but no latency histograms.
 */
export const ROLLUP_DIMS = [
  '',
  'model',
  'provider',
  'status_code',
  'api_key',
  'prompt_version',
  'cache_hit',
  'streamed',
  'user',
] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];
