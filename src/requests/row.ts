/**
 * One `requests` row as written (column names): the request log's row, shared by the proxy that
 * writes it (through src/requests/writer.ts), the rollup fold (src/analytics/fold.ts) and the gateway's
 * own model calls. No imports, so anything may depend on it.
 */
export interface RequestRow {
  id: string;
  org_id: string;
  project_id: string;
  api_key_id: string | null;
  provider: string;
  model: string;
  method: string;
  path: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
  latency_ms: number;
  ttfb_ms: number | null;
  status_code: number;
  trace_id: string | null;
  span_id: string | null;
  user_id: string | null;
  session_id: string | null;
  request_body: string;
  response_body: string;
  log_mode: 'full' | 'meta' | 'none';
  cache_hit: boolean;
  streamed: boolean;
  tokens_estimated: boolean;
  self_hosted: boolean;
  prompt_version_id: string | null;
  error: string | null;
  created_at: string;
  /** Custom properties (x-service-property-*), null when none. */
  properties: Record<string, string> | null;
  /** For a cache hit: what the call would have cost upstream. */
  cost_saved_usd: number | null;
}
