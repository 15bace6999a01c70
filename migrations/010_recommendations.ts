import type { Knex } from 'knex';

/**
 * Recommendations (issue 12): evidence-backed suggestions recomputed by the `recommendations`
 * schedule (src/recommendations/). One row per (project, kind, subject); a dismissed one stays
 * dismissed unless its saving doubles.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table recommendations (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      kind text not null check (kind in ('cheaper_model', 'cache_repeats', 'prompt_growth', 'rate_limited',
        'upstream_errors', 'stream_long_completions')),
      subject text not null,
      title text not null,
      detail text not null,
      evidence jsonb not null,
      monthly_saving_usd numeric(20, 6) not null default 0,
      status text not null default 'open' check (status in ('open', 'dismissed')),
      dismissed_at timestamptz,
      dismissed_by text,
      dismissed_saving_usd numeric(20, 6),
      computed_at timestamptz not null,
      created_at timestamptz not null default now(),
      unique (project_id, kind, subject)
    );
    create index recommendations_org_idx on recommendations (org_id, monthly_saving_usd desc, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists recommendations');
}
