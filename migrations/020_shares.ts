import type { Knex } from 'knex';

/** Shares (issue 16, docs/shares.md): a read-only link to one resource; the token is stored hashed. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table shares (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      resource_type text not null check (resource_type in ('trace', 'session', 'request', 'experiment_comparison',
        'stats_view')),
      resource_id text not null,
      token_hash text not null unique,
      token_hint text not null,
      expires_at timestamptz,
      redact_bodies boolean not null default false,
      view_count integer not null default 0,
      last_viewed_at timestamptz,
      created_by text,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    );
    create index shares_org_idx on shares (org_id, created_at desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists shares');
}
