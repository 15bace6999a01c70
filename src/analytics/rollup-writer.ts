import type { Knex } from 'knex';
import type { RequestRow } from '../proxy/request-row';
import { addTo, merge } from './histogram';

/**
 * The hourly rollups' deltas: what a batch of request rows adds to each (project, dimension,
 * hour, value). A batch's deltas are stored with its rows, in their transaction (fold.ts), and
 * added to the rollups afterwards, many batches at once.
 */

/** Dimensions with their own rollup rows; '' is the project total. No histograms on per-user rows. */
export const ROLLUP_DIMS = ['', 'model', 'provider', 'status_code', 'api_key', 'prompt_version', 'cache_hit', 'streamed', 'user'] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];
const NO_HIST = new Set<RollupDim>(['user']);

const hourOf = (iso: string) => {
  const d = new Date(iso);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
};

function dimValues(r: RequestRow): [RollupDim, string | null][] {
  return [
    ['', ''],
    ['model', r.model],
    ['provider', r.provider],
    ['status_code', String(r.status_code)],
    ['api_key', r.api_key_id],
    ['prompt_version', r.prompt_version_id],
    ['cache_hit', String(r.cache_hit)],
    ['streamed', String(r.streamed)],
    ['user', r.user_id],
  ];
}

interface Acc {
  project_id: string;
  dim: string;
  bucket: string;
  value: string;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  self_hosted_requests: number;
  unpriced_requests: number;
  cache_hits: number;
  cache_saved_usd: number;
  latency_sum: number;
  streamed_requests: number;
  latency_hist: number[] | null;
  ttft_hist: number[] | null;
}

export function rollupDeltas(rows: readonly RequestRow[]): Acc[] {
  const byKey = new Map<string, Acc>();
  for (const r of rows) {
    const bucket = hourOf(r.created_at);
    for (const [dim, value] of dimValues(r)) {
      if (value === null) continue;
      const key = `${r.project_id}\u0000${dim}\u0000${bucket}\u0000${value}`;
      let a = byKey.get(key);
      if (!a) {
        const hist = NO_HIST.has(dim) ? null : [];
        a = { project_id: r.project_id, dim, value, bucket, requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0, self_hosted_requests: 0, unpriced_requests: 0, cache_hits: 0, cache_saved_usd: 0, latency_sum: 0, streamed_requests: 0, latency_hist: hist, ttft_hist: hist && [] };
        byKey.set(key, a);
      }
      a.requests++;
      if (r.status_code >= 400) a.errors++;
      a.prompt_tokens += r.prompt_tokens;
      a.completion_tokens += r.completion_tokens;
      a.total_tokens += r.total_tokens;
      a.cache_read_tokens += r.cache_read_tokens;
      a.cache_write_tokens += r.cache_write_tokens;
      a.cost_usd += r.cost_usd ?? 0;
      if (r.self_hosted) a.self_hosted_requests++;
      else if (r.cost_usd === null) a.unpriced_requests++;
      if (r.cache_hit) a.cache_hits++, (a.cache_saved_usd += r.cost_saved_usd ?? 0);
      a.latency_sum += r.latency_ms;
      if (r.streamed) a.streamed_requests++;
      if (a.latency_hist) addTo(a.latency_hist, r.latency_ms);
      if (a.ttft_hist && r.streamed && r.ttfb_ms !== null) addTo(a.ttft_hist, r.ttfb_ms);
    }
  }
  const out = [...byKey.values()];
  for (const a of out) if (a.ttft_hist?.length === 0) a.ttft_hist = null;
  return out.sort((x, y) => cmp(x.project_id, y.project_id) || cmp(x.dim, y.dim) || cmp(x.bucket, y.bucket) || cmp(x.value, y.value));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const SUMS = ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cost_usd', 'self_hosted_requests', 'unpriced_requests', 'cache_hits', 'cache_saved_usd', 'latency_sum', 'streamed_requests'] as const;

/** Several batches' deltas as one: sums added, histograms merged, per key. */
export function mergeRollupDeltas(lists: readonly (readonly Acc[])[]): Acc[] {
  const byKey = new Map<string, Acc>();
  for (const list of lists)
    for (const d of list) {
      const key = `${d.project_id}\u0000${d.dim}\u0000${d.bucket}\u0000${d.value}`;
      const a = byKey.get(key);
      if (!a) {
        byKey.set(key, { ...d, latency_hist: d.latency_hist && [...d.latency_hist], ttft_hist: d.ttft_hist && [...d.ttft_hist] });
        continue;
      }
      for (const k of SUMS) a[k] += d[k];
      if (d.latency_hist) a.latency_hist = merge(a.latency_hist ?? [], d.latency_hist);
      if (d.ttft_hist) a.ttft_hist = merge(a.ttft_hist ?? [], d.ttft_hist);
    }
  return [...byKey.values()].sort((x, y) => cmp(x.project_id, y.project_id) || cmp(x.dim, y.dim) || cmp(x.bucket, y.bucket) || cmp(x.value, y.value));
}

const UPSERT_ROLLUPS = `insert into request_rollups select * from json_populate_recordset(null::request_rollups, ?::json)
  on conflict (project_id, dim, bucket, value) do update set
    ${SUMS.map((c) => `${c} = request_rollups.${c} + excluded.${c}`).join(', ')},
    latency_hist = hist_add(request_rollups.latency_hist, excluded.latency_hist),
    ttft_hist = hist_add(request_rollups.ttft_hist, excluded.ttft_hist)`;

/** Adds merged deltas to the rollup rows (the fold; src/analytics/fold.ts). Key order: no deadlocks. */
export async function applyRollupDeltas(trx: Knex.Transaction, deltas: readonly Acc[]): Promise<void> {
  if (deltas.length) await trx.raw(UPSERT_ROLLUPS, [JSON.stringify(deltas)]);
}

export type RollupDelta = Acc;
