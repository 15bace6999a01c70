import type { Knex } from 'knex';
import type { RequestRow } from '../proxy/request-row';
import { writeEndUsers } from './end-user-writer';
import { addTo } from './histogram';

/**
 * Keeps the hourly rollups and the end-user tables in step with the request log: called in the
 * transaction that inserts the rows (src/proxy/request-row.ts), with the rows actually inserted,
 * so a replayed journal never counts a call twice. Upserts go in key order: concurrent writers
 * (several api replicas) lock rollup rows in the same order and never deadlock.
 */

/** Dimensions with their own rollup rows; '' is the project total. No histograms on per-user/session rows. */
export const ROLLUP_DIMS = ['', 'model', 'provider', 'status_code', 'api_key', 'prompt_version', 'cache_hit', 'streamed', 'user', 'session'] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];
const NO_HIST = new Set<RollupDim>(['user', 'session']);

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
    ['session', r.session_id],
  ];
}

interface Acc {
  project_id: string;
  dim: string;
  value: string;
  bucket: string;
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
      const key = `${r.project_id}\u0000${dim}\u0000${value}\u0000${bucket}`;
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
  return out.sort((x, y) => cmp(x.project_id, y.project_id) || cmp(x.dim, y.dim) || cmp(x.value, y.value) || cmp(x.bucket, y.bucket));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const SUMS = ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cost_usd', 'self_hosted_requests', 'unpriced_requests', 'cache_hits', 'cache_saved_usd', 'latency_sum', 'streamed_requests'];

export async function writeRollups(trx: Knex.Transaction, rows: readonly RequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx.raw(
    `insert into request_rollups select * from json_populate_recordset(null::request_rollups, ?::json)
     on conflict (project_id, dim, value, bucket) do update set
       ${SUMS.map((c) => `${c} = request_rollups.${c} + excluded.${c}`).join(', ')},
       latency_hist = hist_add(request_rollups.latency_hist, excluded.latency_hist),
       ttft_hist = hist_add(request_rollups.ttft_hist, excluded.ttft_hist)`,
    [JSON.stringify(rollupDeltas(rows))],
  );
  await writeEndUsers(trx, rows);
}
