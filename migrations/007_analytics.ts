import type { Knex } from 'knex';

/**
 * Analytics (issue 12): custom properties on requests, hourly rollups of the request log and the
 * end-user tables, all maintained by the request-log writer in the transaction that inserts the
 * rows (src/analytics/rollup-writer.ts). Raw rows stay the source of truth.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- x-service-property-<name>: <value> (at most 20 per call); filters fall back to raw rows.
    alter table requests add column properties jsonb;
    -- What a cache hit would have cost upstream (its own cost_usd is 0).
    alter table requests add column cost_saved_usd numeric(20, 10);
    create index requests_properties_idx on requests using gin (properties jsonb_path_ops) where properties is not null;

    -- Element-wise sum of two histograms (latency bins, src/analytics/histogram.ts); null is empty.
    create function hist_add(a integer[], b integer[]) returns integer[] language sql immutable parallel safe as $$
      select case when a is null then b when b is null then a else
        (select array_agg(coalesce(a[i], 0) + coalesce(b[i], 0) order by i)
           from generate_series(1, greatest(cardinality(a), cardinality(b))) i) end
    $$;

    -- One row per (project, dimension, hour, value). dim '' is the project total; other dims:
    -- model, provider, status_code, api_key, prompt_version, cache_hit, streamed, user. Latency and
    -- time-to-first-token histograms are kept except on per-user rows. One index (the key) and
    -- room on each page: the writer's updates stay HOT (no index writes), which is most of what
    -- keeps rollup upkeep cheap for the request-log writer.
    create table request_rollups (
      project_id uuid not null references projects(id) on delete cascade,
      dim text not null,
      bucket timestamptz not null,
      value text not null,
      requests bigint not null,
      errors bigint not null,
      prompt_tokens bigint not null,
      completion_tokens bigint not null,
      total_tokens bigint not null,
      cache_read_tokens bigint not null,
      cache_write_tokens bigint not null,
      cost_usd numeric(24, 10) not null,
      self_hosted_requests bigint not null,
      unpriced_requests bigint not null,
      cache_hits bigint not null,
      cache_saved_usd numeric(24, 10) not null,
      latency_sum bigint not null,
      streamed_requests bigint not null,
      latency_hist integer[],
      ttft_hist integer[],
      primary key (project_id, dim, bucket, value)
    ) with (fillfactor = 70);

    -- Each request-log batch's rollup and end-user deltas, written with its rows and folded into
    -- the rollups soon after (src/analytics/fold.ts).
    create table rollup_deltas (
      id bigserial primary key,
      created_at timestamptz not null default now(),
      rollups jsonb not null,
      users jsonb not null
    );
    -- What reads use: folded rollups plus the deltas not folded yet (a few seconds' worth).
    create view request_rollups_live as
      select * from request_rollups
      union all
      select r.* from rollup_deltas d cross join lateral jsonb_populate_recordset(null::request_rollups, d.rollups) r;

    -- The histogram bin of a duration in ms: exact below 50, then bins growing by 3 %, capped at one
    -- hour (the same as binOf in src/analytics/histogram.ts).
    create function hist_bin(ms integer) returns integer language sql immutable parallel safe as $$
      select case when ms is null then null when ms < 50 then greatest(ms, 0)
        else 50 + ceil(ln(least(ms, 3600000) / 50.0) / ln(1.03) - 1e-9)::integer end
    $$;
    -- A dense histogram (array index = bin + 1) from the bins of some values.
    create function hist_of(bins integer[]) returns integer[] language sql immutable parallel safe as $$
      select case when bins is null or cardinality(bins) = 0 then null else
        (select array_agg(coalesce(c.n, 0)::integer order by i)
           from generate_series(0, (select max(b) from unnest(bins) b)) i
           left join (select b, count(*) as n from unnest(bins) b group by b) c on c.b = i) end
    $$;

    -- Rebuilds the rollups of [p_from, p_to) (whole UTC hours) from the raw rows: the backfill of
    -- rows logged before rollups existed, and a repair tool (docs/analytics.md).
    create function rebuild_request_rollups(p_from timestamptz, p_to timestamptz) returns bigint language plpgsql as $$
    declare
      d record;
      n bigint := 0;
      k bigint;
      f timestamptz := date_trunc('hour', p_from, 'UTC');
      t timestamptz := date_trunc('hour', p_to + interval '59 minutes 59.999999 seconds', 'UTC');
    begin
      delete from request_rollups where bucket >= f and bucket < t;
      for d in select * from (values ('', $q$''$q$, true), ('model', 'r.model', true), ('provider', 'r.provider', true),
          ('status_code', 'r.status_code::text', true), ('api_key', 'r.api_key_id::text', true),
          ('prompt_version', 'r.prompt_version_id::text', true), ('cache_hit', 'r.cache_hit::text', true),
          ('streamed', 'r.streamed::text', true), ('user', 'r.user_id', false)) v(dim, expr, hist)
      loop
        execute format($f$
          insert into request_rollups
          select r.project_id, %L, date_trunc('hour', r.created_at, 'UTC'), %s, count(*),
                 count(*) filter (where r.status_code >= 400), sum(r.prompt_tokens), sum(r.completion_tokens),
                 sum(r.total_tokens), sum(r.cache_read_tokens), sum(r.cache_write_tokens), coalesce(sum(r.cost_usd), 0),
                 count(*) filter (where r.self_hosted),
                 count(*) filter (where r.cost_usd is null and not r.self_hosted),
                 count(*) filter (where r.cache_hit), coalesce(sum(r.cost_saved_usd), 0), sum(r.latency_ms),
                 count(*) filter (where r.streamed), %s, %s
            from requests r where r.created_at >= $1 and r.created_at < $2 and %s is not null
           group by 1, 2, 3, 4$f$,
          d.dim, d.expr,
          case when d.hist then 'hist_of(array_agg(hist_bin(r.latency_ms)))' else 'null::integer[]' end,
          case when d.hist
            then 'hist_of(array_agg(hist_bin(r.ttfb_ms)) filter (where r.streamed and r.ttfb_ms is not null))'
            else 'null::integer[]' end,
          d.expr) using f, t;
        get diagnostics k = row_count;
        n := n + k;
      end loop;
      return n;
    end $$;

    -- End users seen through x-service-user-id (and trace user_id): totals for the /users list.
    -- No index beyond the key, for HOT updates (sorting a project's end users is an in-memory sort).
    create table end_users (
      project_id uuid not null references projects(id) on delete cascade,
      user_id text not null,
      first_seen timestamptz not null,
      last_seen timestamptz not null,
      requests bigint not null default 0,
      errors bigint not null default 0,
      prompt_tokens bigint not null default 0,
      completion_tokens bigint not null default 0,
      total_tokens bigint not null default 0,
      cost_usd numeric(24, 10) not null default 0,
      sessions bigint not null default 0,
      traces bigint not null default 0,
      primary key (project_id, user_id)
    ) with (fillfactor = 70);

    -- Which sessions each end user had: written once per session (insert if absent), so counting
    -- a user's sessions costs an index probe per call rather than an update.
    create table end_user_sessions (
      project_id uuid not null references projects(id) on delete cascade,
      user_id text not null,
      session_id text not null,
      first_seen timestamptz not null,
      primary key (project_id, user_id, session_id)
    );

    -- Rebuilds the end-user tables from the raw rows and the traces (backfill and repair).
    create function rebuild_end_users() returns void language plpgsql as $$
    begin
      delete from end_users;
      delete from end_user_sessions;
      insert into end_user_sessions
      select project_id, user_id, session_id, min(created_at) from requests
        where user_id is not null and session_id is not null group by 1, 2, 3;
      insert into end_users (project_id, user_id, first_seen, last_seen, requests, errors, prompt_tokens,
        completion_tokens, total_tokens, cost_usd, sessions)
      select r.project_id, r.user_id, min(r.created_at), max(r.created_at), count(*),
             count(*) filter (where r.status_code >= 400), sum(r.prompt_tokens), sum(r.completion_tokens),
             sum(r.total_tokens), coalesce(sum(r.cost_usd), 0),
             coalesce((select count(*) from end_user_sessions s
               where s.project_id = r.project_id and s.user_id = r.user_id), 0)
        from requests r where r.user_id is not null group by 1, 2;
      insert into end_users as u (project_id, user_id, first_seen, last_seen, traces)
      select project_id, user_id, min(start_time), max(start_time), count(*) from traces
        where user_id is not null and created group by 1, 2
      on conflict (project_id, user_id) do update set traces = excluded.traces,
        first_seen = least(u.first_seen, excluded.first_seen), last_seen = greatest(u.last_seen, excluded.last_seen);
    end $$;

    -- Rows logged before this migration.
    select rebuild_request_rollups('-infinity', 'infinity') where exists (select 1 from requests);
    select rebuild_end_users()
     where exists (select 1 from requests) or exists (select 1 from traces where user_id is not null);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop view if exists request_rollups_live;
    drop table if exists rollup_deltas, end_user_sessions, end_users, request_rollups;
    drop function if exists hist_add(integer[], integer[]), hist_bin(integer), hist_of(integer[]),
      rebuild_request_rollups(timestamptz, timestamptz), rebuild_end_users();
    drop index if exists requests_properties_idx;
    alter table requests drop column if exists properties, drop column if exists cost_saved_usd;`);
}
