import type { Knex } from 'knex';

/**
 * Datasets (issue 15, docs/datasets.md). Items are kept as an append-only history: each change is a
 * new row stamped with the dataset version (a timestamp) it belongs to, so any past version reads
 * as the newest row of each item at or before it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table datasets (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      description text,
      metadata jsonb not null default '{}',
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (project_id, name)
    );

    -- One row per change of the dataset's items: the version is its timestamp.
    create table dataset_versions (
      dataset_id uuid not null references datasets(id) on delete cascade,
      version timestamptz not null,
      change text not null,
      added integer not null default 0,
      updated integer not null default 0,
      archived integer not null default 0,
      created_by text,
      primary key (dataset_id, version)
    );

    create table dataset_item_history (
      dataset_id uuid not null references datasets(id) on delete cascade,
      item_id text not null check (char_length(item_id) between 1 and 128),
      version timestamptz not null,
      input jsonb,
      expected_output jsonb,
      metadata jsonb not null default '{}',
      source_request_id uuid,
      source_trace_id text,
      source_span_id text,
      split text,
      status text not null default 'active' check (status in ('active', 'archived')),
      primary key (dataset_id, item_id, version)
    );
    create index dataset_item_history_version_idx on dataset_item_history (dataset_id, version);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists dataset_item_history, dataset_versions, datasets');
}
