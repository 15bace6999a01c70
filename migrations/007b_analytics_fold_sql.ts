/**
 * The SQL functions of the analytics fold (migrations/007b_analytics_fold.ts), kept apart from the
 * migration that creates them. Not a migration itself: migrations/index.ts lists those.
 */
export const SUMS = [
  'requests',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cost_usd',
  'self_hosted_requests',
  'unpriced_requests',
  'cache_hits',
  'cache_saved_usd',
  'latency_sum',
  'streamed_requests',
];
/** Rollup dimension → its key column in the fold's row set (`k_<dim>`). */
const DIMS = ['model', 'provider', 'status_code', 'api_key', 'prompt_version', 'cache_hit', 'streamed', 'user'];
/** Daily per-user rollups plus the rows of pending batches (re-created by 009 when `requests` becomes partitioned). */
export const END_USER_DAYS_LIVE = `
    -- The pending part is driven by rollup_pending (lateral, fenced by offset 0): a filter on the
    -- day must never be pushed into a scan of the whole request log.
    create view end_user_days_live as
      select * from end_user_days
      union all
      select c.* from rollup_pending p cross join lateral (
        select r.project_id, (r.created_at at time zone 'UTC')::date as day, r.user_id collate "C" as user_id,
               1::bigint, (r.status_code >= 400)::int::bigint, r.prompt_tokens::bigint, r.completion_tokens::bigint,
               r.total_tokens::bigint, r.cache_read_tokens::bigint, r.cache_write_tokens::bigint,
               coalesce(r.cost_usd, 0)::numeric, r.self_hosted::int::bigint,
               (r.cost_usd is null and not r.self_hosted)::int::bigint, r.cache_hit::int::bigint,
               coalesce(r.cost_saved_usd, 0)::numeric, r.latency_ms::bigint, r.streamed::int::bigint,
               hist_of(array[hist_bin(r.latency_ms)]),
               case when r.streamed and r.ttfb_ms is not null then hist_of(array[hist_bin(r.ttfb_ms)]) end
          from requests r where r.created_at >= p.lo and r.created_at < p.hi and r.id in (select unnest(p.ids))
            and r.user_id is not null
        offset 0) c;
`;

/**
 * A CTE grouping `r` by (project, hour) and by each dimension (one grouping set each), with `dim`
 * and `value` naming the set; `extra` adds a column (a histogram bin) to every set; per-user sets
 * only with `withUsers` (they keep no histograms).
 */
function GROUPED(name: string, measures: string, withUsers: boolean, extra: string): string {
  const dims = withUsers ? DIMS : DIMS.filter((d) => d !== 'user');
  const x = extra ? `, ${extra}` : '';
  const sets = [`(project_id, bucket${x})`, ...dims.map((d) => `(project_id, bucket, k_${d}${x})`)].join(', ');
  const dim = `case ${dims.map((d) => `when grouping(k_${d}) = 0 then '${d}'`).join(' ')} else '' end`;
  const value = `coalesce(${dims.map((d) => `case when grouping(k_${d}) = 0 then k_${d} end`).join(', ')}, '')`;
  const notNull = dims.map((d) => `(grouping(k_${d}) = 0 and k_${d} is null)`).join(' or ');
  return `${name} as (select project_id, bucket, (${dim}) collate "C" as dim,
      (${value}) collate "C" as value, ${measures}
      from r group by grouping sets (${sets}) having not (${notNull}))`;
}

/** Latency histogram helpers (src/analytics/histogram.ts). */
export const HIST_FUNCTIONS = `
    -- Element-wise sum of two histograms (latency bins, src/analytics/histogram.ts); null is empty.
    create function hist_add(a integer[], b integer[]) returns integer[] language sql immutable parallel safe as $$
      select case when a is null then b when b is null then a else
        (select array_agg(coalesce(a[i], 0) + coalesce(b[i], 0) order by i)
           from generate_series(1, greatest(cardinality(a), cardinality(b))) i) end
    $$;
    -- The bin of a duration in ms: exact below 50, then bins growing by 3 %, capped at one hour
    -- (binOf in src/analytics/histogram.ts).
    create function hist_bin(ms integer) returns integer language sql immutable parallel safe as $$
      select case when ms is null then null when ms < 50 then greatest(ms, 0)
        else 50 + ceil(ln(least(ms, 3600000) / 50.0) / ln(1.03) - 1e-9)::integer end
    $$;
    -- A dense histogram (array index = bin + 1) from the bins of some values; null without any.
    create function hist_of(bins integer[]) returns integer[] language sql immutable parallel safe as $$
      select case when bins is null or cardinality(bins) = 0 then null else
        (select array_agg(coalesce(c.n, 0)::integer order by i)
           from generate_series(0, (select max(b) from unnest(bins) b)) i
           left join (select b, count(*) as n from unnest(bins) b group by b) c on c.b = i) end
    $$;

    -- A dense histogram from sorted (bin, count) pairs.
    create function hist_dense(bins integer[], counts integer[]) returns integer[]
      language sql immutable parallel safe as $$
      select case when bins is null then null else
        (select array_agg(coalesce(c.n, 0) order by i) from generate_series(0, bins[cardinality(bins)]) i
           left join unnest(bins, counts) c(b, n) on c.b = i) end
    $$;
`;

/** `rollup_cells`: request rows expanded into rollup cells. */
export const ROLLUP_CELLS_FN = `
    -- One cell per (request row, dimension) of the rows created in [lo, hi) (and among ids, when
    -- given): every measure of one call, and its latency/TTFT bins on dimensions with histograms.
    -- "id in (select unnest(ids))" is a hashed lookup; "id = any(ids)" with a non-constant array
    -- compares every row with every id (seconds for a fold of a few thousand rows).
    create function rollup_cells(lo timestamptz, hi timestamptz, ids uuid[]) returns table (
      project_id uuid, dim text, bucket timestamptz, value text, requests bigint, errors bigint, prompt_tokens bigint,
      completion_tokens bigint, total_tokens bigint, cache_read_tokens bigint, cache_write_tokens bigint,
      cost_usd numeric, self_hosted_requests bigint, unpriced_requests bigint, cache_hits bigint,
      cache_saved_usd numeric, latency_sum bigint, streamed_requests bigint, lat_bin integer, ttft_bin integer)
    language sql stable as $$
      -- Per-row values computed once per row (offset 0 keeps them from being recomputed per cell);
      -- "C" collation: grouping and the rollup key compare bytes, not locale rules (much cheaper).
      select r.project_id, d.dim collate "C", r.bucket, d.value collate "C", 1, (r.status_code >= 400)::int,
             r.prompt_tokens, r.completion_tokens, r.total_tokens, r.cache_read_tokens, r.cache_write_tokens,
             coalesce(r.cost_usd, 0), r.self_hosted::int, (r.cost_usd is null and not r.self_hosted)::int,
             r.cache_hit::int, coalesce(r.cost_saved_usd, 0), r.latency_ms, r.streamed::int,
             case when d.hist then r.lat_bin end, case when d.hist then r.ttft_bin end
        from (select r.*, date_bin('1 hour', r.created_at, timestamptz '2000-01-01 00:00:00+00') as bucket,
                     hist_bin(r.latency_ms) as lat_bin, case when r.streamed then hist_bin(r.ttfb_ms) end as ttft_bin
                from requests r
               where r.created_at >= lo and r.created_at < hi and (ids is null or r.id in (select unnest(ids)))
              offset 0) r
        cross join lateral (values ('', '', true), ('model', r.model, true), ('provider', r.provider, true),
                                   ('status_code', r.status_code::text, true), ('api_key', r.api_key_id::text, true),
                                   ('prompt_version', r.prompt_version_id::text, true),
                                   ('cache_hit', r.cache_hit::text, true), ('streamed', r.streamed::text, true),
                                   ('user', r.user_id, false)) d(dim, value, hist)
       where d.value is not null
    $$;
`;

/** `add_rollup_cells`: adds request rows to the rollups. */
export const ADD_ROLLUP_CELLS_FN = `
    -- Adds the rows of [lo, hi) (∩ ids) to the rollups in one pass: grouping sets hash each row
    -- into every dimension at once (materialising a cell per row and dimension cost several times
    -- more), histograms from (key, bin) counts; upserts in key order (concurrent folds never deadlock).
    create function add_rollup_cells(lo timestamptz, hi timestamptz, ids uuid[]) returns void
      language sql set work_mem = '64MB' as $$
      with r as materialized (
        select r.project_id, date_bin('1 hour', r.created_at, timestamptz '2000-01-01 00:00:00+00') as bucket,
               r.model collate "C" as k_model, r.provider collate "C" as k_provider,
               r.status_code::text collate "C" as k_status_code, r.api_key_id::text collate "C" as k_api_key,
               r.prompt_version_id::text collate "C" as k_prompt_version, r.cache_hit::text collate "C" as k_cache_hit,
               r.streamed::text collate "C" as k_streamed, r.user_id collate "C" as k_user,
               r.status_code, r.prompt_tokens, r.completion_tokens, r.total_tokens, r.cache_read_tokens,
               r.cache_write_tokens, r.cost_usd, r.self_hosted, r.cache_hit as hit, r.cost_saved_usd, r.latency_ms,
               r.streamed as stream, hist_bin(r.latency_ms) as lat_bin,
               case when r.streamed then hist_bin(r.ttfb_ms) end as ttft_bin
          from requests r
         where r.created_at >= lo and r.created_at < hi and (ids is null or r.id in (select unnest(ids)))),
      ${GROUPED(
        'sums',
        `count(*) as requests, count(*) filter (where status_code >= 400) as errors,
          sum(prompt_tokens) as prompt_tokens, sum(completion_tokens) as completion_tokens,
          sum(total_tokens) as total_tokens, sum(cache_read_tokens) as cache_read_tokens,
          sum(cache_write_tokens) as cache_write_tokens, coalesce(sum(cost_usd), 0) as cost_usd,
          count(*) filter (where self_hosted) as self_hosted_requests,
          count(*) filter (where cost_usd is null and not self_hosted) as unpriced_requests,
          count(*) filter (where hit) as cache_hits, coalesce(sum(cost_saved_usd), 0) as cache_saved_usd,
          sum(latency_ms) as latency_sum, count(*) filter (where stream) as streamed_requests`,
        true,
        '',
      )},
      ${GROUPED('lat', 'lat_bin as bin, count(*)::int as n', false, 'lat_bin')},
      ${GROUPED('ttft', 'ttft_bin as bin, count(*)::int as n', false, 'ttft_bin')},
      hists as (
        select 'l' as kind, project_id, dim, bucket, value, array_agg(n order by bin) as n,
               array_agg(bin order by bin) as bins
          from lat where bin is not null group by 1, 2, 3, 4, 5
        union all
        select 't', project_id, dim, bucket, value, array_agg(n order by bin), array_agg(bin order by bin)
          from ttft where bin is not null group by 1, 2, 3, 4, 5)
      insert into request_rollups
      select s.project_id, s.dim, s.bucket, s.value, s.requests, s.errors, s.prompt_tokens, s.completion_tokens,
             s.total_tokens, s.cache_read_tokens, s.cache_write_tokens, s.cost_usd, s.self_hosted_requests,
             s.unpriced_requests, s.cache_hits, s.cache_saved_usd, s.latency_sum, s.streamed_requests,
             hist_dense(l.bins, l.n), hist_dense(t.bins, t.n)
        from sums s
        left join hists l
          on l.kind = 'l' and (l.project_id, l.dim, l.bucket, l.value) = (s.project_id, s.dim, s.bucket, s.value)
        left join hists t
          on t.kind = 't' and (t.project_id, t.dim, t.bucket, t.value) = (s.project_id, s.dim, s.bucket, s.value)
       order by s.project_id, s.dim, s.bucket, s.value
      on conflict (project_id, dim, bucket, value) do update set
        ${SUMS.map((c) => `${c} = request_rollups.${c} + excluded.${c}`).join(', ')},
        latency_hist = hist_add(request_rollups.latency_hist, excluded.latency_hist),
        ttft_hist = hist_add(request_rollups.ttft_hist, excluded.ttft_hist)
    $$;
`;

/** `add_end_users`: adds request rows to the end-user tables. */
export const ADD_END_USERS_FN = `
    -- Adds rows to the end-user tables: sessions insert-if-absent, each new one counted once.
    create function add_end_users(lo timestamptz, hi timestamptz, ids uuid[]) returns void language sql as $$
      with new_sessions as (
        insert into end_user_sessions
        select project_id, user_id, session_id, min(created_at) from requests
         where created_at >= lo and created_at < hi and (ids is null or id in (select unnest(ids)))
           and user_id is not null and session_id is not null
         group by 1, 2, 3 order by 1, 2, 3
        on conflict do nothing returning project_id, user_id),
      n as (select project_id, user_id, count(*) as c from new_sessions group by 1, 2)
      insert into end_users (project_id, user_id, first_seen, last_seen, requests, errors, prompt_tokens,
        completion_tokens, total_tokens, cost_usd, sessions)
      select r.project_id, r.user_id, min(r.created_at), max(r.created_at), count(*),
             count(*) filter (where r.status_code >= 400), sum(r.prompt_tokens), sum(r.completion_tokens),
             sum(r.total_tokens), coalesce(sum(r.cost_usd), 0), coalesce(max(n.c), 0)
        from requests r left join n on n.project_id = r.project_id and n.user_id = r.user_id
       where r.created_at >= lo and r.created_at < hi and (ids is null or r.id in (select unnest(ids)))
         and r.user_id is not null
       group by 1, 2 order by 1, 2
      on conflict (project_id, user_id) do update set
        first_seen = least(end_users.first_seen, excluded.first_seen),
        last_seen = greatest(end_users.last_seen, excluded.last_seen),
        requests = end_users.requests + excluded.requests, errors = end_users.errors + excluded.errors,
        prompt_tokens = end_users.prompt_tokens + excluded.prompt_tokens,
        completion_tokens = end_users.completion_tokens + excluded.completion_tokens,
        total_tokens = end_users.total_tokens + excluded.total_tokens,
        cost_usd = end_users.cost_usd + excluded.cost_usd, sessions = end_users.sessions + excluded.sessions;
      with r as materialized (
        select project_id, (created_at at time zone 'UTC')::date as day, user_id collate "C" as user_id, status_code,
               prompt_tokens, completion_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
               self_hosted, cache_hit, cost_saved_usd, latency_ms, streamed, hist_bin(latency_ms) as lat_bin,
               case when streamed then hist_bin(ttfb_ms) end as ttft_bin
          from requests where created_at >= lo and created_at < hi and (ids is null or id in (select unnest(ids)))
            and user_id is not null),
      s as (select project_id, day, user_id, count(*) as requests,
                   count(*) filter (where status_code >= 400) as errors, sum(prompt_tokens) as prompt_tokens,
                   sum(completion_tokens) as completion_tokens, sum(total_tokens) as total_tokens,
                   sum(cache_read_tokens) as cache_read_tokens, sum(cache_write_tokens) as cache_write_tokens,
                   coalesce(sum(cost_usd), 0) as cost_usd, count(*) filter (where self_hosted) as self_hosted_requests,
                   count(*) filter (where cost_usd is null and not self_hosted) as unpriced_requests,
                   count(*) filter (where cache_hit) as cache_hits, coalesce(sum(cost_saved_usd), 0) as cache_saved_usd,
                   sum(latency_ms) as latency_sum, count(*) filter (where streamed) as streamed_requests
              from r group by 1, 2, 3),
      l as (select project_id, day, user_id, array_agg(b order by b) as bins, array_agg(n order by b) as ns
              from (select project_id, day, user_id, lat_bin as b, count(*)::int as n
                      from r where lat_bin is not null group by 1, 2, 3, 4) x group by 1, 2, 3),
      t as (select project_id, day, user_id, array_agg(b order by b) as bins, array_agg(n order by b) as ns
              from (select project_id, day, user_id, ttft_bin as b, count(*)::int as n
                      from r where ttft_bin is not null group by 1, 2, 3, 4) x group by 1, 2, 3)
      insert into end_user_days
      select s.*, hist_dense(l.bins, l.ns), hist_dense(t.bins, t.ns)
        from s left join l using (project_id, day, user_id) left join t using (project_id, day, user_id)
       order by 1, 2, 3
      on conflict (project_id, day, user_id) do update set
        ${SUMS.map((c) => `${c} = end_user_days.${c} + excluded.${c}`).join(', ')},
        latency_hist = hist_add(end_user_days.latency_hist, excluded.latency_hist),
        ttft_hist = hist_add(end_user_days.ttft_hist, excluded.ttft_hist);
    $$;
`;
