import type { Knex } from 'knex';

/**
 * Score configs and scores (issue 14, docs/scores.md): what evaluators, human annotation and
 * users' own pipelines record about a request, trace, span or session.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table score_configs (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      data_type text not null check (data_type in ('numeric', 'categorical', 'boolean')),
      min double precision,
      max double precision,
      -- [{label, value}] for categorical configs.
      categories jsonb,
      description text,
      is_archived boolean not null default false,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (min is null or max is null or min <= max)
    );
    -- One live config per name and project; archived ones free the name.
    create unique index score_configs_name_idx on score_configs (project_id, name) where not is_archived;
    create index score_configs_org_idx on score_configs (org_id, created_at, id);

    create table scores (
      -- Client-chosen ids make writes idempotent (a replay updates the same score).
      id uuid primary key,
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      data_type text not null check (data_type in ('numeric', 'categorical', 'boolean')),
      value double precision,
      string_value text,
      source text not null check (source in ('api', 'eval', 'annotation')),
      comment text,
      config_id uuid references score_configs(id),
      target_type text not null check (target_type in ('request', 'trace', 'span', 'session', 'experiment_item')),
      request_id uuid,
      trace_id text,
      span_id text,
      session_id text,
      -- An experiment's run of a dataset item (experiments, migrations/016_experiments.ts).
      experiment_id uuid,
      experiment_item_id text,
      experiment_repetition integer,
      created_by text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (value is not null or string_value is not null),
      check ((target_type = 'request') = (request_id is not null)),
      check (target_type <> 'span' or (trace_id is not null and span_id is not null)),
      check (target_type <> 'trace' or (trace_id is not null and span_id is null)),
      check ((target_type = 'session') = (session_id is not null)),
      check ((target_type = 'experiment_item') = (experiment_id is not null and experiment_item_id is not null
        and experiment_repetition is not null))
    );
    create index scores_project_idx on scores (project_id, created_at desc, id desc);
    create index scores_name_idx on scores (project_id, name, created_at);
    create index scores_request_idx on scores (request_id) where request_id is not null;
    create index scores_trace_idx on scores (project_id, trace_id) where trace_id is not null;
    create index scores_session_idx on scores (project_id, session_id) where session_id is not null;
    create index scores_config_idx on scores (config_id) where config_id is not null;
    create index scores_experiment_idx on scores (experiment_id, experiment_item_id) where experiment_id is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists scores, score_configs');
}
