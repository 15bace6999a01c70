import type { Knex } from 'knex';

/**
 * Evaluators and eval runs (issue 14, docs/evals.md). An eval run is a Temporal workflow
 * (`eval-run-<id>`); its items record each (target, evaluator) outcome, so a worker restart
 * resumes without scoring anything twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table evaluators (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      type text not null check (type in ('llm_judge', 'regex', 'contains', 'exact_match', 'json_schema', 'levenshtein',
        'latency', 'cost')),
      config jsonb not null,
      score_config_id uuid references score_configs(id),
      description text,
      -- Online evaluation: {target: requests | traces, filter, sampling_rate}; null = off.
      online jsonb,
      -- Targets up to here have been considered for online evaluation.
      online_watermark timestamptz,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (project_id, name)
    );

    create table eval_runs (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      evaluator_ids uuid[] not null,
      -- {kind: requests | traces, filter, from, to, limit}
      target jsonb not null,
      status text not null default 'pending' check (status in ('pending', 'running', 'completed', 'cancelled',
        'failed')),
      -- The rolling run of an online evaluator: items are added as matching traffic arrives.
      online boolean not null default false,
      total integer,
      workflow_id text not null,
      error text,
      created_by text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz
    );
    create index eval_runs_project_idx on eval_runs (project_id, created_at desc, id desc);
    create unique index eval_runs_online_idx on eval_runs ((evaluator_ids[1])) where online;
    -- Prompt version labels (production, staging, …): name@label resolves to the version holding it.
    alter table prompt_versions add column labels text[] not null default '{}';
    -- Online evaluation of traces reads the ones completed since its watermark.
    create index traces_completed_idx on traces (project_id, completed_event_at) where completed_event_at is not null;

    create table eval_run_items (
      run_id uuid not null references eval_runs(id) on delete cascade,
      evaluator_id uuid not null,
      -- The request id or trace id scored.
      target_id text not null,
      status text not null default 'pending' check (status in ('pending', 'completed', 'error', 'delayed')),
      score_id uuid,
      value double precision,
      string_value text,
      error text,
      judge_cost_usd numeric(20, 10),
      judge_request_id uuid,
      updated_at timestamptz not null default now(),
      primary key (run_id, evaluator_id, target_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists eval_run_items, eval_runs, evaluators; ' +
      'alter table prompt_versions drop column if exists labels; drop index if exists traces_completed_idx',
  );
}
