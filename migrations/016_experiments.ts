import type { Knex } from 'knex';

/**
 * Experiments (issue 15, docs/experiments.md): a subject (a prompt version and model, or an
 * external application posting its outputs) run over a dataset version, N times; each item run
 * keeps its output, request, latency, cost and scores.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table experiments (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      dataset_id uuid not null references datasets(id) on delete cascade,
      dataset_version timestamptz not null,
      -- {kind: prompt, prompt_version_id, provider, model, parameters} | {kind: external}
      subject jsonb not null,
      evaluator_ids uuid[] not null default '{}',
      repetitions integer not null check (repetitions between 1 and 10),
      status text not null check (status in ('running', 'awaiting_outputs', 'completed', 'cancelled', 'failed')),
      workflow_id text,
      error text,
      created_by text,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    );
    create index experiments_project_idx on experiments (project_id, created_at desc, id desc);

    create table experiment_items (
      experiment_id uuid not null references experiments(id) on delete cascade,
      item_id text not null,
      repetition integer not null,
      status text not null default 'pending' check (status in ('pending', 'completed', 'error')),
      output jsonb,
      request_id uuid,
      trace_id text,
      latency_ms double precision,
      cost_usd numeric(20, 10),
      error text,
      updated_at timestamptz not null default now(),
      primary key (experiment_id, item_id, repetition)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists experiment_items, experiments');
}
