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

    -- One row per (project, dimension, value, hour). dim '' is the project total; other dims:
    -- model, provider, status_code, api_key, prompt_version, cache_hit, streamed, user, session.
    -- Latency and time-to-first-token histograms are kept except on the user and session dims.
    create table request_rollups (
      project_id uuid not null references projects(id) on delete cascade,
      dim text not null,
      value text not null,
      bucket timestamptz not null,
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
      primary key (project_id, dim, value, bucket)
    );
    create index request_rollups_time_idx on request_rollups (project_id, dim, bucket);

    -- End users seen through x-service-user-id (and trace user_id): totals for the /users list.
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
      traces bigint not null default 0,
      primary key (project_id, user_id)
    );
    create index end_users_cost_idx on end_users (project_id, cost_usd desc, user_id);
    create index end_users_last_seen_idx on end_users (project_id, last_seen desc, user_id);
    create index end_users_requests_idx on end_users (project_id, requests desc, user_id);

    create table end_user_models (
      project_id uuid not null,
      user_id text not null,
      model text not null,
      requests bigint not null,
      cost_usd numeric(24, 10) not null,
      primary key (project_id, user_id, model),
      foreign key (project_id, user_id) references end_users (project_id, user_id) on delete cascade
    );

    create table end_user_sessions (
      project_id uuid not null,
      user_id text not null,
      session_id text not null,
      first_seen timestamptz not null,
      last_seen timestamptz not null,
      requests bigint not null,
      cost_usd numeric(24, 10) not null,
      primary key (project_id, user_id, session_id),
      foreign key (project_id, user_id) references end_users (project_id, user_id) on delete cascade
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table if exists end_user_sessions, end_user_models, end_users, request_rollups;
    drop function if exists hist_add(integer[], integer[]);
    drop index if exists requests_properties_idx;
    alter table requests drop column if exists properties, drop column if exists cost_saved_usd;`);
}
