import type { Knex } from 'knex';

/**
 * Exports (issue 16, docs/exports.md): one row per export; its Temporal workflow `export-<id>`
 * writes the file in parts and records the progress here. `link_key` signs download links
 * (HMAC); it never leaves the server.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table exports (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_ids uuid[] not null,
      resource text not null check (resource in ('requests', 'traces', 'spans', 'sessions', 'scores', 'dataset_items',
        'experiment_results')),
      format text not null check (format in ('csv', 'jsonl', 'parquet')),
      filter jsonb not null default '{}',
      columns text[] not null,
      include_bodies boolean not null default false,
      status text not null default 'pending' check (status in ('pending', 'running', 'completed', 'failed', 'cancelled',
        'expired')),
      rows_written bigint not null default 0,
      estimated_total bigint,
      parts integer not null default 0,
      bytes bigint,
      storage_key text,
      workflow_id text not null,
      link_key text not null,
      error text,
      created_by text,
      created_by_user text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz
    );
    create index exports_org_idx on exports (org_id, created_at desc);
    create index exports_expiry_idx on exports (expires_at) where status = 'completed';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists exports');
}
