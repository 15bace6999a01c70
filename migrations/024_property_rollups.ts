import type { Knex } from 'knex';

const SUMS = [
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
/**
 * Taken shared by every fold and exclusively while a key is (un)registered: see
 * register_property_rollups.
 */
const FOLD_LOCK = 7_240_024;

/** The rollup cell columns of one request row (`r`) under one property key (`k`). */
const CELL = `r.project_id, ('property:' || k.name) collate "C" as dim,
  date_bin('1 hour', r.created_at, timestamptz '2000-01-01 00:00:00+00') as bucket,
  (r.properties ->> k.name) collate "C" as value, 1::bigint as requests, (r.status_code >= 400)::int::bigint as errors,
  r.prompt_tokens::bigint as prompt_tokens, r.completion_tokens::bigint as completion_tokens,
  r.total_tokens::bigint as total_tokens, r.cache_read_tokens::bigint as cache_read_tokens,
  r.cache_write_tokens::bigint as cache_write_tokens, coalesce(r.cost_usd, 0)::numeric as cost_usd,
  r.self_hosted::int::bigint as self_hosted_requests,
  (r.cost_usd is null and not r.self_hosted)::int::bigint as unpriced_requests, r.cache_hit::int::bigint as cache_hits,
  coalesce(r.cost_saved_usd, 0)::numeric as cache_saved_usd, r.latency_ms::bigint as latency_sum,
  r.streamed::int::bigint as streamed_requests, hist_bin(r.latency_ms) as lat_bin,
  case when r.streamed then hist_bin(r.ttfb_ms) end as ttft_bin`;

/**
 * Rows of [lo, hi) (∩ ids), joined with their project's registered keys (∩ names); without the rows
 * of pending batches when skip_pending (read in the same snapshot as the rows: a batch's rows and
 * its pending mark commit together).
 */
const ROWS = `from requests r join property_rollup_keys k on k.project_id = r.project_id
  where r.created_at >= lo and r.created_at < hi and (ids is null or r.id in (select unnest(ids)))
    and (not skip_pending or r.id not in (select u from rollup_pending p, unnest(p.ids) u))
    and (only_project is null or r.project_id = only_project)
    and (names is null or k.name = any(names)) and r.properties ->> k.name is not null`;

/**
 * Hourly rollups per custom property value (issue 29). Custom properties are free-form: a key may
 * hold a value per call, so only registered keys (`property_rollup_keys`: the busiest keys of a
 * project with few values, chosen hourly by src/analytics/property-rollups.ts) get rollup rows.
 * They live in request_rollups under dim `property:<name>` (a name never holds ':'), so retention,
 * reads and the live view treat them like any other dimension; the fold adds them from the same
 * pending batches. Plus two indexes for /users/:id and the spans view.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table property_rollup_keys (
      project_id uuid not null references projects(id) on delete cascade,
      name text collate "C" not null,
      registered_at timestamptz not null default now(),
      primary key (project_id, name)
    );

    -- One cell per (request row, registered key it carries): the pending part of the live view.
    create function property_cells(lo timestamptz, hi timestamptz, ids uuid[]) returns table (
      project_id uuid, dim text, bucket timestamptz, value text, requests bigint, errors bigint, prompt_tokens bigint,
      completion_tokens bigint, total_tokens bigint, cache_read_tokens bigint, cache_write_tokens bigint,
      cost_usd numeric, self_hosted_requests bigint, unpriced_requests bigint, cache_hits bigint,
      cache_saved_usd numeric, latency_sum bigint, streamed_requests bigint, lat_bin integer, ttft_bin integer)
    language sql stable as $$
      select ${CELL} from requests r join property_rollup_keys k on k.project_id = r.project_id
       where r.created_at >= lo and r.created_at < hi and r.id in (select unnest(ids))
         and r.properties ->> k.name is not null
    $$;

    -- Adds rows to the property rollups, like add_rollup_cells: sums and (key, bin) counts grouped
    -- once, upserted in key order. The fold passes its batches' ids; a registration its project and
    -- new keys, skipping the rows of pending batches (the fold adds those).
    create function add_property_cells(lo timestamptz, hi timestamptz, ids uuid[], skip_pending boolean,
      only_project uuid, names text[])
    returns void language sql set work_mem = '64MB' as $$
      with c as materialized (select ${CELL} ${ROWS}),
      s as (select project_id, dim, bucket, value, ${SUMS.map((k) => `sum(${k}) as ${k}`).join(', ')} from c
        group by 1, 2, 3, 4),
      l as (select project_id, dim, bucket, value, array_agg(b order by b) as bins, array_agg(n order by b) as ns
              from (select project_id, dim, bucket, value, lat_bin as b, count(*)::int as n from c
                where lat_bin is not null group by 1, 2, 3, 4, 5) x group by 1, 2, 3, 4),
      t as (select project_id, dim, bucket, value, array_agg(b order by b) as bins, array_agg(n order by b) as ns
              from (select project_id, dim, bucket, value, ttft_bin as b, count(*)::int as n from c
                where ttft_bin is not null group by 1, 2, 3, 4, 5) x group by 1, 2, 3, 4)
      insert into request_rollups
      select s.*, hist_dense(l.bins, l.ns), hist_dense(t.bins, t.ns)
        from s left join l using (project_id, dim, bucket, value) left join t using (project_id, dim, bucket, value)
       order by s.project_id, s.dim, s.bucket, s.value
      on conflict (project_id, dim, bucket, value) do update set
        ${SUMS.map((c) => `${c} = request_rollups.${c} + excluded.${c}`).join(', ')},
        latency_hist = hist_add(request_rollups.latency_hist, excluded.latency_hist),
        ttft_hist = hist_add(request_rollups.ttft_hist, excluded.ttft_hist)
    $$;

    -- Registers keys of a project and adds every row it already has. Exclusive with folds: a fold
    -- that took a batch before the key existed would not add that batch's cells, and the backfill
    -- skips pending batches, so such a batch would be lost. Writers never wait (only folds do).
    create function register_property_rollups(p_project uuid, p_names text[]) returns integer language plpgsql as $$
    declare v_new text[]; f timestamptz; t timestamptz;
    begin
      perform pg_advisory_xact_lock(${FOLD_LOCK});
      with n as (insert into property_rollup_keys (project_id, name) select p_project, x from unnest(p_names) x
                 on conflict do nothing returning name)
      select array_agg(name) into v_new from n;
      if v_new is null then return 0; end if;
      select date_trunc('day', min(created_at), 'UTC'), max(created_at) into f, t from requests
        where project_id = p_project;
      -- A day at a time, like rebuild_request_rollups: the cells of a day fit in memory.
      while f <= t loop
        perform add_property_cells(f, f + interval '1 day', null, true, p_project, v_new);
        f := f + interval '1 day';
      end loop;
      return cardinality(v_new);
    end $$;

    -- Drops keys (a key that grew too many values) and their rollup rows.
    create function unregister_property_rollups(p_project uuid, p_names text[]) returns integer language plpgsql as $$
    declare v_n integer;
    begin
      perform pg_advisory_xact_lock(${FOLD_LOCK});
      delete from property_rollup_keys where project_id = p_project and name = any(p_names);
      get diagnostics v_n = row_count;
      delete from request_rollups
       where project_id = p_project and dim = any(select 'property:' || x from unnest(p_names) x);
      return v_n;
    end $$;

    -- 007b's fold, plus the property cells of the same batches, under the shared fold lock.
    create or replace function fold_rollups(max_batches integer) returns integer language plpgsql as $$
    declare v_ids uuid[]; v_lo timestamptz; v_hi timestamptz; v_n integer;
    begin
      perform pg_advisory_xact_lock_shared(${FOLD_LOCK});
      with p as (delete from rollup_pending where id in
                   (select id from rollup_pending order by id limit max_batches for update skip locked)
                 returning ids, lo, hi)
      select (select array_agg(u) from p, unnest(p.ids) u), (select min(lo) from p), (select max(hi) from p),
             (select count(*) from p)
        into v_ids, v_lo, v_hi, v_n;
      if v_n = 0 then return 0; end if;
      perform add_rollup_cells(v_lo, v_hi, v_ids);
      perform add_property_cells(v_lo, v_hi, v_ids, false, null, null);
      perform add_end_users(v_lo, v_hi, v_ids);
      return v_n;
    end $$;

    -- 007b's rebuild, plus the registered keys' rows (it deletes every rollup row of the range).
    create or replace function rebuild_request_rollups(p_from timestamptz, p_to timestamptz) returns void
      language plpgsql as $$
    declare
      f timestamptz := date_trunc('hour', p_from, 'UTC');
      t timestamptz := case when p_to = 'infinity' then p_to
        else date_trunc('hour', p_to + interval '1 hour' - interval '1 microsecond', 'UTC') end;
      v_min timestamptz;
      v_max timestamptz;
    begin
      delete from request_rollups where bucket >= f and bucket < t;
      select min(created_at), max(created_at) into v_min, v_max from requests where created_at >= f and created_at < t;
      if v_min is null then return; end if;
      f := greatest(f, date_trunc('hour', v_min, 'UTC'));
      t := least(t, date_trunc('hour', v_max, 'UTC') + interval '1 hour');
      while f < t loop
        perform add_rollup_cells(f, least(t, f + interval '1 day'), null);
        perform add_property_cells(f, least(t, f + interval '1 day'), null, false, null, null);
        f := f + interval '1 day';
      end loop;
    end $$;

    -- What reads use: 007b's view plus the property cells of pending batches.
    create or replace view request_rollups_live as
      select * from request_rollups
      union all
      select c.project_id, c.dim, c.bucket, c.value, c.requests, c.errors, c.prompt_tokens, c.completion_tokens,
             c.total_tokens, c.cache_read_tokens, c.cache_write_tokens, c.cost_usd, c.self_hosted_requests,
             c.unpriced_requests, c.cache_hits, c.cache_saved_usd, c.latency_sum, c.streamed_requests,
             case when c.lat_bin is not null then hist_of(array[c.lat_bin]) end,
             case when c.ttft_bin is not null then hist_of(array[c.ttft_bin]) end
        from rollup_pending p cross join lateral rollup_cells(p.lo, p.hi, p.ids) c
      union all
      select c.project_id, c.dim, c.bucket, c.value, c.requests, c.errors, c.prompt_tokens, c.completion_tokens,
             c.total_tokens, c.cache_read_tokens, c.cache_write_tokens, c.cost_usd, c.self_hosted_requests,
             c.unpriced_requests, c.cache_hits, c.cache_saved_usd, c.latency_sum, c.streamed_requests,
             case when c.lat_bin is not null then hist_of(array[c.lat_bin]) end,
             case when c.ttft_bin is not null then hist_of(array[c.ttft_bin]) end
        from rollup_pending p cross join lateral property_cells(p.lo, p.hi, p.ids) c;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace view request_rollups_live as
      select * from request_rollups
      union all
      select c.project_id, c.dim, c.bucket, c.value, c.requests, c.errors, c.prompt_tokens, c.completion_tokens,
             c.total_tokens, c.cache_read_tokens, c.cache_write_tokens, c.cost_usd, c.self_hosted_requests,
             c.unpriced_requests, c.cache_hits, c.cache_saved_usd, c.latency_sum, c.streamed_requests,
             case when c.lat_bin is not null then hist_of(array[c.lat_bin]) end,
             case when c.ttft_bin is not null then hist_of(array[c.ttft_bin]) end
        from rollup_pending p cross join lateral rollup_cells(p.lo, p.hi, p.ids) c;
    delete from request_rollups where dim like 'property:%';
    create or replace function fold_rollups(max_batches integer) returns integer language plpgsql as $$
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
    create or replace function rebuild_request_rollups(p_from timestamptz, p_to timestamptz) returns void
      language plpgsql as $$
    declare
      f timestamptz := date_trunc('hour', p_from, 'UTC');
      t timestamptz := case when p_to = 'infinity' then p_to
        else date_trunc('hour', p_to + interval '1 hour' - interval '1 microsecond', 'UTC') end;
      v_min timestamptz;
      v_max timestamptz;
    begin
      delete from request_rollups where bucket >= f and bucket < t;
      select min(created_at), max(created_at) into v_min, v_max from requests where created_at >= f and created_at < t;
      if v_min is null then return; end if;
      f := greatest(f, date_trunc('hour', v_min, 'UTC'));
      t := least(t, date_trunc('hour', v_max, 'UTC') + interval '1 hour');
      while f < t loop
        perform add_rollup_cells(f, least(t, f + interval '1 day'), null);
        f := f + interval '1 day';
      end loop;
    end $$;
    drop function if exists register_property_rollups(uuid, text[]), unregister_property_rollups(uuid, text[]),
      add_property_cells(timestamptz, timestamptz, uuid[], boolean, uuid, text[]),
      property_cells(timestamptz, timestamptz, uuid[]);
    drop table if exists property_rollup_keys;
  `);
}
