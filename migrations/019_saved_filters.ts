import type { Knex } from 'knex';

/** Saved filters (issue 16, docs/saved-filters.md): a named filter of a view, private or shared with the project. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table saved_filters (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      owner_id uuid references users(id) on delete set null,
      name text not null check (length(name) between 1 and 200),
      view text not null check (view in ('requests', 'traces', 'sessions', 'users', 'stats')),
      -- The view's query parameters, as the API takes them.
      filter jsonb not null,
      columns text[],
      sort text,
      visibility text not null check (visibility in ('private', 'project')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index saved_filters_org_idx on saved_filters (org_id, view, name);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists saved_filters');
}
