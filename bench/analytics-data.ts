import type { Knex } from 'knex';

/**
 * The analytics benchmark's data, generated inside PostgreSQL (a client would spend longer
 * serialising 10 million rows than the server spends writing them): request rows over 30 days
 * with 1,000 end users, 20 models of 5 providers, 3 custom properties, sessions, streams, cache
 * hits, errors and log-normal latencies; 20-span traces; then the rollups and end-user tables
 * built by the same SQL a backfill uses (equal to the writer's, as the tests prove).
 */
export const MODELS: [string, string, number, number][] = [
  // provider, model, $ per 1M input, $ per 1M output (the ratio matters here, not the exact price)
  ['openai', 'gpt-4o', 2.5, 10],
  ['openai', 'gpt-4o-mini', 0.15, 0.6],
  ['openai', 'gpt-4.1', 2, 8],
  ['openai', 'gpt-4.1-mini', 0.4, 1.6],
  ['openai', 'o3-mini', 1.1, 4.4],
  ['anthropic', 'claude-sonnet-4-20250514', 3, 15],
  ['anthropic', 'claude-3-5-haiku-latest', 0.8, 4],
  ['anthropic', 'claude-opus-4-20250514', 15, 75],
  ['anthropic', 'claude-3-7-sonnet-latest', 3, 15],
  ['anthropic', 'claude-3-haiku-20240307', 0.25, 1.25],
  ['google', 'gemini-2.5-pro', 1.25, 10],
  ['google', 'gemini-2.5-flash', 0.3, 2.5],
  ['google', 'gemini-2.0-flash', 0.1, 0.4],
  ['google', 'gemini-1.5-pro', 1.25, 5],
  ['mistral', 'mistral-large-latest', 2, 6],
  ['mistral', 'mistral-small-latest', 0.1, 0.3],
  ['mistral', 'codestral-latest', 0.3, 0.9],
  ['groq', 'llama-3.3-70b-versatile', 0.59, 0.79],
  ['groq', 'llama-3.1-8b-instant', 0.05, 0.08],
  ['groq', 'openai/gpt-oss-120b', 0.15, 0.75],
];

export interface DataShape {
  orgId: string;
  projectId: string;
  apiKeyId: string;
  rows: number;
  spans: number;
  /** End of the 30 days (a whole hour). */
  to: Date;
  log: (m: string) => void;
}

const CHUNK = 1_000_000;

export async function generate(db: Knex, s: DataShape): Promise<void> {
  const values = MODELS.map(([p, m, i, o], k) => `(${k}, '${p}', '${m}', ${i}, ${o})`).join(', ');
  const models = `(values ${values}) as m(k, provider, model, pin, pout)`;
  // Chunk by chunk through the 30 days, each in time order: a request log is appended as calls
  // happen, so a day's rows sit together on disk (random order would make every range read the table).
  const SPAN = 30 * 86_400_000;
  const from = s.to.getTime() - SPAN;
  for (let done = 0; done < s.rows; done += CHUNK) {
    const n = Math.min(CHUNK, s.rows - done);
    const t0 = Date.now();
    // A skewed model mix (the first models most used), 97 % success, 1.5 % 429, 1 % 500, 0.5 % 400.
    await db.raw(
      `insert into requests (id, org_id, project_id, api_key_id, provider, model, path,
                             prompt_tokens, completion_tokens, total_tokens,
                             cost_usd, latency_ms, ttfb_ms, status_code, user_id, session_id, log_mode,
                             cache_hit, streamed, cost_saved_usd, properties, created_at)
       select gen_random_uuid(), ?, ?, ?, m.provider, m.model, '/v1/chat/completions', g.pt, g.ct, g.pt + g.ct,
              case when g.hit then 0 else round(((g.pt * m.pin + g.ct * m.pout) / 1e6)::numeric, 10) end,
              g.lat, case when g.stream then (g.lat * (0.05 + random() * 0.2))::int end,
              case when g.r < 0.97 then 200 when g.r < 0.985 then 429 when g.r < 0.995 then 500 else 400 end,
              'user-' || g.u, 'user-' || g.u || '-s' || floor(extract(epoch from g.at) / 7200)::bigint,
              'meta', g.hit, g.stream,
              case when g.hit then round(((g.pt * m.pin + g.ct * m.pout) / 1e6)::numeric, 10) end,
              jsonb_build_object('env', case when g.u % 10 = 0 then 'staging' else 'prod' end,
                                 'feature', 'feature-' || (g.u % 10),
                                 'tier', (array['free', 'pro', 'enterprise'])[1 + g.u % 3]),
              g.at
         from (select floor(20 * power(random(), 2))::int as mk, floor(1000 * power(random(), 1.5))::int as u,
                      (50 + random() * 1950)::int as pt, (10 + random() * 790)::int as ct, random() as r,
                      random() < 0.05 as hit, random() < 0.3 as stream,
                      least(600000, greatest(1,
                        exp(6.2 + 0.8 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))))::int as lat,
                      ?::timestamptz + random() * (? * interval '1 millisecond') as at
                 from generate_series(1, ?)) g
         join ${models} on m.k = g.mk
        order by g.at`,
      [s.orgId, s.projectId, s.apiKeyId, new Date(from + (done / s.rows) * SPAN).toISOString(), (n / s.rows) * SPAN, n],
    );
    s.log(`requests ${done + n}/${s.rows} (${((Date.now() - t0) / 1000).toFixed(1)} s for this million)`);
  }
  const traces = Math.ceil(s.spans / 20);
  let t0 = Date.now();
  await db.raw(
    `insert into traces (project_id, id, org_id, name, status, user_id, session_id, metadata,
                         start_time, end_time, created)
     select ?, 'tr-' || i, ?, 'agent-' || (i % 5), case when i % 50 = 0 then 'error' else 'completed' end,
            'user-' || (i % 1000), null,
            jsonb_build_object('env', 'prod'), st, st + (random() * 20) * interval '1 second', true
       from (select i, ?::timestamptz - random() * interval '30 days' as st from generate_series(1, ?) i) x`,
    [s.projectId, s.orgId, s.to.toISOString(), traces],
  );
  await db.raw(
    `insert into spans (project_id, id, trace_id, name, span_type, status, model,
                        prompt_tokens, completion_tokens, total_tokens, cost_usd, start_time, end_time, created)
     select t.project_id, t.id || '-' || k, t.id, 'step-' || k, (array['llm', 'tool', 'retrieval', 'chain'])[1 + k % 4],
            case when k = 0 and t.status = 'error' then 'error' else 'ok' end,
            case when k % 4 = 0 then 'gpt-4o-mini' end,
            case when k % 4 = 0 then 500 end, case when k % 4 = 0 then 100 end, case when k % 4 = 0 then 600 end,
            case when k % 4 = 0 then 0.000135 end, t.start_time + k * interval '500 ms',
            -- durations from 0.2 ms to 20 s, most under a second (a skewed, realistic spread)
            t.start_time + k * interval '500 ms' + (0.2 + power(random(), 3) * 20000) * interval '1 ms', true
       from traces t, generate_series(0, 19) k where t.project_id = ?`,
    [s.projectId],
  );
  s.log(`traces ${traces}, spans ${traces * 20} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  t0 = Date.now();
  await db.raw(`select rebuild_request_rollups(?::timestamptz - interval '31 days', ?)`, [
    s.to.toISOString(),
    s.to.toISOString(),
  ]);
  await db.raw('select rebuild_end_users()');
  s.log(`rollups and end users built (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  t0 = Date.now();
  await db.raw('vacuum analyze');
  s.log(`vacuum analyze (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
