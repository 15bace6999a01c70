import type { Knex } from 'knex';
import { END_USER_DAYS_LIVE } from './007b_analytics_fold_sql';

/**
 * The request log partitioned by month (issue 12): retention drops whole months (src/retention/),
 * and a time range reads only its months. Same columns in the same order (the writer inserts
 * `select * from json_populate_recordset(null::requests, …)`); the key becomes (id, created_at),
 * as a partitioned table's unique keys must hold the partition key. A DEFAULT partition keeps
 * any row outside the monthly ones (a journal replayed from long ago, a skewed clock): nothing is
 * ever refused for its date; the daily upkeep moves such rows into their month when it creates it.
 */
const INDEXES = `
  create index requests_project_time_idx on requests (project_id, created_at desc, id desc);
  create index requests_project_session_idx on requests (project_id, session_id, created_at desc)
    where session_id is not null;
  create index requests_project_user_idx on requests (project_id, user_id, created_at desc) where user_id is not null;
  create index requests_trace_idx on requests (trace_id) where trace_id is not null;
  create index requests_org_time_idx on requests (org_id, created_at desc);
  create index requests_prompt_version_idx on requests (prompt_version_id) where prompt_version_id is not null;
  create index requests_api_key_idx on requests (api_key_id) where api_key_id is not null;
  create index requests_properties_idx on requests using gin (properties jsonb_path_ops) where properties is not null;`;

const FOREIGN_KEYS = `
  alter table requests add foreign key (org_id) references organizations(id) on delete cascade;
  alter table requests add foreign key (project_id) references projects(id) on delete cascade;
  alter table requests add foreign key (api_key_id) references api_keys(id) on delete set null;
  alter table requests add foreign key (prompt_version_id) references prompt_versions(id) on delete set null;`;

/** The format() string (an SQL literal) moving one month's rows out of the default partition. */
const MOVE_ROWS =
  "'with moved as (delete from requests_default where created_at >= %L and created_at < %L returning *) " +
  "insert into %I select * from moved'";

/**
 * Creates the month starting at `m` (UTC) unless it exists. Rows of that month already in the
 * default partition move into it: it is filled as a plain table first, then attached (attaching
 * checks the default holds none of its rows any more).
 */
const CREATE_PARTITION_FN = `
    create function create_request_partition(m timestamptz) returns boolean language plpgsql as $fn$
    declare
      name text := 'requests_' || to_char(m at time zone 'UTC', 'YYYY"m"MM');
      lo timestamptz := date_trunc('month', m, 'UTC');
      hi timestamptz := date_trunc('month', m, 'UTC') + interval '1 month';
    begin
      if to_regclass(name) is not null then return false; end if;
      execute format('create table %I (like requests including defaults including constraints)', name);
      execute format(${MOVE_ROWS}, lo, hi, name);
      execute format('alter table requests attach partition %I for values from (%L) to (%L)', name, lo, hi);
      return true;
    end $fn$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    drop view end_user_days_live;
    alter table requests rename to requests_unpartitioned;
    create table requests (like requests_unpartitioned including defaults including constraints)
      partition by range (created_at);
    create table requests_default partition of requests default;
    ${CREATE_PARTITION_FN}
    -- A month from the oldest row's to three months ahead.
    do $$
    declare
      m timestamptz :=
        date_trunc('month', coalesce((select min(created_at) from requests_unpartitioned), now()), 'UTC');
    begin
      while m < date_trunc('month', now(), 'UTC') + interval '4 months' loop
        perform create_request_partition(m);
        m := m + interval '1 month';
      end loop;
    end $$;
    insert into requests select * from requests_unpartitioned;
    drop table requests_unpartitioned;
    -- Key and indexes after the old table is gone (their names were its).
    alter table requests add primary key (id, created_at);
    ${INDEXES}
    ${FOREIGN_KEYS}
    ${END_USER_DAYS_LIVE}
    -- How far body retention has got (src/retention/), so a daily run starts where the last ended.
    create table retention_marks (key text primary key, value timestamptz not null);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop view end_user_days_live;
    drop table retention_marks;
    alter table requests rename to requests_partitioned;
    create table requests (like requests_partitioned including defaults including constraints);
    insert into requests select * from requests_partitioned;
    drop table requests_partitioned;
    alter table requests add primary key (id);
    drop function create_request_partition(timestamptz);
    ${INDEXES}
    ${FOREIGN_KEYS}
    ${END_USER_DAYS_LIVE}
  `);
}
