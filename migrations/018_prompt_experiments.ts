import type { Knex } from 'knex';

/**
 * Prompt experiments (issue 15, docs/experiments.md#prompt-experiments): a grid of prompt variants, one experiment
 * each, over the same items.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table prompt_experiments (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      dataset_id uuid not null references datasets(id) on delete cascade,
      dataset_version timestamptz not null,
      variants jsonb not null,
      experiment_ids uuid[] not null,
      evaluator_ids uuid[] not null default '{}',
      created_by text,
      created_at timestamptz not null default now()
    );
    create index prompt_experiments_project_idx on prompt_experiments (project_id, created_at desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists prompt_experiments');
}
