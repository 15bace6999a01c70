import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { foldAll } from '../../../src/analytics/fold';
import { insertRequestRows, type RequestRow } from '../../../src/requests/writer';

/** A request row as the proxy writes it; tests override what they check. */
export function requestRow(
  base: { orgId: string; projectId: string; apiKeyId?: string | null },
  over: Partial<RequestRow> = {},
): RequestRow {
  return {
    id: randomUUID(),
    org_id: base.orgId,
    project_id: base.projectId,
    api_key_id: base.apiKeyId ?? null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    method: 'POST',
    path: '/v1/chat/completions',
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0.001,
    latency_ms: 100,
    ttfb_ms: null,
    status_code: 200,
    trace_id: null,
    span_id: null,
    user_id: null,
    session_id: null,
    request_body: '',
    response_body: '',
    log_mode: 'meta',
    cache_hit: false,
    streamed: false,
    tokens_estimated: false,
    self_hosted: false,
    prompt_version_id: null,
    error: null,
    created_at: new Date().toISOString(),
    properties: null,
    cost_saved_usd: null,
    ...over,
  };
}

/**
 * Writes rows through the request-log writer's own insert (with their rollup deltas), then, unless
 * `fold` is false, folds the deltas as the api does shortly after.
 */
export async function writeRows(db: Knex, rows: RequestRow[], opts: { fold?: boolean } = {}): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500);
    await db.transaction((trx) =>
      insertRequestRows(
        trx,
        batch.map((row) => ({ row })),
      ),
    );
  }
  if (opts.fold !== false) await foldAll(db);
}
