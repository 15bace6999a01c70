import type { Knex } from 'knex';

/**
 * Anomalies (issue 12): what the detector (src/anomalies/, a Temporal Schedule every 5 minutes)
 * found. One open (or acknowledged) anomaly per (project, measure, dimension, value): a
 * re-detection updates it instead of adding another.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table anomalies (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      measure text not null check (measure in ('cost', 'requests', 'error_rate', 'latency_p95', 'tokens_per_request')),
      dimension text not null check (dimension in ('project', 'model', 'user')),
      dimension_value text not null,
      direction text not null check (direction in ('up', 'down')),
      expected_low double precision not null,
      expected_median double precision not null,
      expected_high double precision not null,
      observed double precision not null,
      score double precision not null,
      baseline jsonb not null,
      window_start timestamptz not null,
      window_end timestamptz not null,
      first_seen timestamptz not null,
      last_seen timestamptz not null,
      detections integer not null default 1,
      sample_request_ids uuid[] not null default '{}',
      status text not null default 'open' check (status in ('open', 'acknowledged', 'resolved')),
      acknowledged_at timestamptz,
      acknowledged_by text,
      resolved_at timestamptz,
      resolved_by text,
      created_at timestamptz not null default now()
    );
    create unique index anomalies_open_key on anomalies (project_id, measure, dimension, dimension_value)
      where status <> 'resolved';
    create index anomalies_org_seen_idx on anomalies (org_id, last_seen desc, id desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists anomalies');
}
