import type { Knex } from 'knex';
import {
  ADD_END_USERS_FN,
  ADD_ROLLUP_CELLS_FN,
  END_USER_DAYS_LIVE,
  HIST_FUNCTIONS,
  ROLLUP_CELLS_FN,
  SUMS,
} from './007b_analytics_fold_sql';

/**
 * The SQL side of the analytics rollups (src/analytics/fold.ts): one expansion of request rows
 * into rollup cells, used by the fold (pending batches), by the rebuild (backfill and repair) and
 * by reads (`request_rollups_live`: folded rollups plus the cells of batches not folded yet).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Supersedes 007's per-batch JSON deltas (folding them in Node cost the writer too much): its
    -- view, delta table and SQL helpers go; the rebuild at the end recounts every rollup from the
    -- raw rows, so deltas not folded yet are not lost.
    drop view if exists request_rollups_live;
    drop table if exists rollup_deltas;
    drop function if exists hist_add(integer[], integer[]), hist_bin(integer), hist_of(integer[]),
      rebuild_request_rollups(timestamptz, timestamptz), rebuild_end_users();
    -- Keys compare in the "C" collation (bytes): the fold groups and upserts thousands of them, and
    -- locale-aware comparison cost several times more.
    alter table request_rollups alter column dim type text collate "C", alter column value type text collate "C";
    -- Request-log batches committed but not yet added to the rollups: their row ids and time span,
    -- written in the batch's transaction and deleted by the fold that adds them (src/analytics/fold.ts).
    -- One end user's hours (a user filter, the series of the top users): the key orders by hour first.
    create index request_rollups_user_idx on request_rollups (project_id, value, bucket) where dim = 'user';
    -- Daily per-user rollups (UTC days), with latency histograms: over a month, ranking end users,
    -- their totals and percentiles, and counting unique users read ~30 rows a user here instead of
    -- ~720 hourly rows or the raw calls (src/analytics/user-days.ts, uniques.ts).
    create table end_user_days (
      project_id uuid not null references projects(id) on delete cascade,
      day date not null,
      user_id text collate "C" not null,
      ${SUMS.map((c) => `${c} ${c.endsWith('_usd') ? 'numeric' : 'bigint'} not null`).join(', ')},
      latency_hist integer[],
      ttft_hist integer[],
      primary key (project_id, day, user_id)
    );
    create table rollup_pending (
      id bigserial primary key,
      ids uuid[] not null,
      lo timestamptz not null,
      hi timestamptz not null
    );

    ${HIST_FUNCTIONS}

    ${ROLLUP_CELLS_FN}

    ${ADD_ROLLUP_CELLS_FN}

    ${ADD_END_USERS_FN}

    -- Daily per-user rollups plus the rows of pending batches (seconds' worth): what reads use.
${END_USER_DAYS_LIVE}

    -- Folds up to max_batches pending batches (taken with SKIP LOCKED: concurrent folds share the work).
    create function fold_rollups(max_batches integer) returns integer language plpgsql as $$
    declare v_ids uuid[]; v_lo timestamptz; v_hi timestamptz; v_n integer;
    begin
      with p as (delete from rollup_pending where id in
                   (select id from rollup_pending order by id limit max_batches for update skip locked)
                 returning ids, lo, hi)
      select (select array_agg(u) from p, unnest(p.ids) u), (select min(lo) from p), (select max(hi) from p),
             (select count(*) from p)
        into v_ids, v_lo, v_hi, v_n;
      if v_n = 0 then return 0; end if;
      perform add_rollup_cells(v_lo, v_hi, v_ids);
      perform add_end_users(v_lo, v_hi, v_ids);
      return v_n;
    end $$;

    -- Folded rollups plus the cells of pending batches (seconds' worth): what reads use.
    create view request_rollups_live as
      select * from request_rollups
      union all
      select c.project_id, c.dim, c.bucket, c.value, c.requests, c.errors, c.prompt_tokens, c.completion_tokens,
             c.total_tokens, c.cache_read_tokens, c.cache_write_tokens, c.cost_usd, c.self_hosted_requests,
             c.unpriced_requests, c.cache_hits, c.cache_saved_usd, c.latency_sum, c.streamed_requests,
             case when c.lat_bin is not null then hist_of(array[c.lat_bin]) end,
             case when c.ttft_bin is not null then hist_of(array[c.ttft_bin]) end
        from rollup_pending p cross join lateral rollup_cells(p.lo, p.hi, p.ids) c;

    -- Rebuilds the rollups of [p_from, p_to) (widened to whole UTC hours) from the raw rows: the
    -- backfill of rows logged before rollups existed, and a repair tool (docs/analytics.md).
    create function rebuild_request_rollups(p_from timestamptz, p_to timestamptz) returns void language plpgsql as $$
    declare
      f timestamptz := date_trunc('hour', p_from, 'UTC');
      t timestamptz := case when p_to = 'infinity' then p_to
        else date_trunc('hour', p_to + interval '1 hour' - interval '1 microsecond', 'UTC') end;
      v_min timestamptz;
      v_max timestamptz;
    begin
      delete from request_rollups where bucket >= f and bucket < t;
      -- A day at a time: the fold's query materialises its cells, fine for a day, not for a year.
      select min(created_at), max(created_at) into v_min, v_max from requests where created_at >= f and created_at < t;
      if v_min is null then return; end if;
      f := greatest(f, date_trunc('hour', v_min, 'UTC'));
      t := least(t, date_trunc('hour', v_max, 'UTC') + interval '1 hour');
      while f < t loop
        perform add_rollup_cells(f, least(t, f + interval '1 day'), null);
        f := f + interval '1 day';
      end loop;
    end $$;

    -- Rebuilds the end-user tables from the raw rows and the traces (backfill and repair).
    create function rebuild_end_users() returns void language plpgsql as $$
    begin
      delete from end_users;
      delete from end_user_sessions;
      delete from end_user_days;
      perform add_end_users('-infinity', 'infinity', null);
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
  // Back to 007's shape: its delta table and live view (the rollups stay; 007's rebuild helpers are
  // the ones defined here, same names and arguments).
  await knex.raw(`
    drop view if exists request_rollups_live, end_user_days_live;
    drop function if exists fold_rollups(integer), add_end_users(timestamptz, timestamptz, uuid[]),
      add_rollup_cells(timestamptz, timestamptz, uuid[]), rollup_cells(timestamptz, timestamptz, uuid[]),
      hist_dense(integer[], integer[]);
    drop table if exists rollup_pending, end_user_days;
    drop index if exists request_rollups_user_idx;
    alter table request_rollups alter column dim type text collate "default",
      alter column value type text collate "default";
    create table rollup_deltas (id bigserial primary key, created_at timestamptz not null default now(),
      rollups jsonb not null, users jsonb not null);
    create view request_rollups_live as
      select * from request_rollups
      union all
      select r.* from rollup_deltas d
        cross join lateral jsonb_populate_recordset(null::request_rollups, d.rollups) r;`);
}
