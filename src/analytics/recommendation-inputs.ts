import type { Knex } from 'knex';

/**
 * What the recommendations are computed from (src/recommendations/): one project's calls of a
 * trailing window, aggregated in SQL through the (project_id, created_at) index (a scheduled
 * job's read, not the API's).
 */
const n = (v: unknown) => Number(v ?? 0);

// The rows as pg returns them: counts, sums (int8, numeric) and averages are numbers, request ids
// (uuid[]) strings; an array_agg with a filter is null where no call passes it.
interface ModelUsageRow {
  provider: string;
  model: string;
  calls: number;
  short_calls: number;
  short_prompt: number;
  short_completion: number;
  samples: string[] | null;
}
/** Successful, priced, uncached calls per model: how many are short, and the short ones' tokens. */
export async function modelUsage(
  db: Knex,
  projectId: string,
  from: string,
  to: string,
  short: { prompt: number; completion: number },
) {
  const { rows } = await db.raw<{ rows: ModelUsageRow[] }>(
    `select provider, model, count(*) as calls,
            count(*) filter (where prompt_tokens <= ? and completion_tokens <= ?) as short_calls,
            coalesce(sum(prompt_tokens) filter (where prompt_tokens <= ? and completion_tokens <= ?), 0)
              as short_prompt,
            coalesce(sum(completion_tokens) filter (where prompt_tokens <= ? and completion_tokens <= ?), 0)
              as short_completion,
            (array_agg(id order by created_at desc)
              filter (where prompt_tokens <= ? and completion_tokens <= ?))[1:5] as samples
       from requests
      where project_id = ? and created_at >= ? and created_at < ? and status_code < 400
        and not cache_hit and cost_usd is not null
      group by 1, 2`,
    [
      short.prompt,
      short.completion,
      short.prompt,
      short.completion,
      short.prompt,
      short.completion,
      short.prompt,
      short.completion,
      projectId,
      from,
      to,
    ],
  );
  return rows.map((r) => ({
    provider: r.provider,
    model: r.model,
    calls: n(r.calls),
    shortCalls: n(r.short_calls),
    shortPrompt: n(r.short_prompt),
    shortCompletion: n(r.short_completion),
    samples: r.samples,
  }));
}

interface RepeatedBodiesRow {
  repeats: number;
  bodies: number;
  cost: number;
  samples: string[] | null;
}
/**
 * Byte-identical stored bodies (full log mode) sent again on the same key, provider and path within
 * a day of the previous one, without a cache hit: what the response cache would have served.
 */
export async function repeatedBodies(db: Knex, projectId: string, from: string, to: string) {
  const { rows } = await db.raw<{ rows: RepeatedBodiesRow[] }>(
    `select count(*) as repeats, count(distinct fp) as bodies, coalesce(sum(cost_usd), 0)::float8 as cost,
            (array_agg(id order by created_at desc))[1:5] as samples
       from (select id, cost_usd, created_at, fp, lag(created_at) over (partition by fp order by created_at) as prev
               from (select id, cost_usd, created_at,
                            md5(coalesce(api_key_id::text, '') || ' ' || provider || ' ' || path || ' ' || request_body)
                              as fp
                       from requests
                      where project_id = ? and created_at >= ? and created_at < ? and log_mode = 'full'
                        and request_body <> ''
                        and not streamed and not cache_hit and status_code = 200) x) y
      where prev is not null and created_at - prev <= interval '1 day'`,
    [projectId, from, to],
  );
  const r = rows[0]!;
  return { repeats: n(r.repeats), bodies: n(r.bodies), cost: n(r.cost), samples: r.samples ?? [] };
}

interface PromptVersionUsageRow {
  name: string;
  version: number;
  provider: string;
  model: string;
  calls: number;
  avg_prompt: number;
  samples: string[];
}
/** Calls and average prompt tokens per version of each prompt (versions with calls in the window). */
export async function promptVersionUsage(db: Knex, projectId: string, from: string, to: string) {
  const { rows } = await db.raw<{ rows: PromptVersionUsageRow[] }>(
    `select p.name, v.version, r.provider, r.model, count(*) as calls, avg(r.prompt_tokens)::float8 as avg_prompt,
            (array_agg(r.id order by r.created_at desc))[1:5] as samples
       from requests r join prompt_versions v on v.id = r.prompt_version_id join prompts p on p.id = v.prompt_id
      where r.project_id = ? and r.created_at >= ? and r.created_at < ? and r.status_code < 400
      group by 1, 2, 3, 4 order by 1, 3, 4, 2`,
    [projectId, from, to],
  );
  return rows.map((r) => ({
    name: r.name,
    version: n(r.version),
    provider: r.provider,
    model: r.model,
    calls: n(r.calls),
    avgPrompt: n(r.avg_prompt),
    samples: r.samples,
  }));
}

interface FailingCallerRow {
  kind: 'rate_limited' | 'upstream_errors';
  who: 'user' | 'api_key';
  id: string;
  failures: number;
  samples: string[];
}
/** End users and API keys with 429s or upstream 5xx answers. */
export async function failingCallers(db: Knex, projectId: string, from: string, to: string) {
  const { rows } = await db.raw<{ rows: FailingCallerRow[] }>(
    `select case when status_code = 429 then 'rate_limited' else 'upstream_errors' end as kind,
            d.who, d.id, count(*) as failures,
            (array_agg(r.id order by r.created_at desc))[1:5] as samples
       from requests r cross join lateral (values ('user', r.user_id), ('api_key', r.api_key_id::text)) d(who, id)
      where r.project_id = ? and r.created_at >= ? and r.created_at < ?
        and (r.status_code = 429 or r.status_code >= 500) and d.id is not null
      group by 1, 2, 3`,
    [projectId, from, to],
  );
  return rows.map((r) => ({ kind: r.kind, who: r.who, id: r.id, failures: n(r.failures), samples: r.samples }));
}

interface LongUnstreamedRow {
  model: string;
  calls: number;
  p50: number | null;
  ttft: number | null;
  samples: string[] | null;
}
/** Long non-streamed completions per model, with the model's streamed time to first token when known. */
export async function longUnstreamed(
  db: Knex,
  projectId: string,
  from: string,
  to: string,
  minLatencyMs: number,
  minCompletion: number,
) {
  const { rows } = await db.raw<{ rows: LongUnstreamedRow[] }>(
    `select model, count(*) filter (where not streamed and latency_ms >= ? and completion_tokens >= ?) as calls,
            percentile_cont(0.5) within group (order by latency_ms)
              filter (where not streamed and latency_ms >= ? and completion_tokens >= ?) as p50,
            percentile_cont(0.5) within group (order by ttfb_ms)
              filter (where streamed and ttfb_ms is not null) as ttft,
            (array_agg(id order by latency_ms desc)
              filter (where not streamed and latency_ms >= ? and completion_tokens >= ?))[1:5] as samples
       from requests
      where project_id = ? and created_at >= ? and created_at < ? and status_code < 400 group by 1`,
    [minLatencyMs, minCompletion, minLatencyMs, minCompletion, minLatencyMs, minCompletion, projectId, from, to],
  );
  return rows
    .filter((r) => n(r.calls) > 0)
    .map((r) => ({
      model: r.model,
      calls: n(r.calls),
      p50: n(r.p50),
      ttft: r.ttft === null ? null : n(r.ttft),
      samples: r.samples,
    }));
}
