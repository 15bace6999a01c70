import type { Knex } from 'knex';

/**
 * Idempotency keys of operator actions (issue 28, docs/webhooks.md "Idempotency keys"): one row
 * per (organization, key). `status`/`response` are null while the first call runs, then hold its
 * answer for replays until `expires_at` (24 h); the daily retention run deletes expired rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table idempotency_keys (
      org_id uuid not null references organizations(id) on delete cascade,
      key text not null,
      fingerprint text not null,
      status integer,
      response jsonb,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      primary key (org_id, key)
    );
    create index idempotency_keys_expires_idx on idempotency_keys (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists idempotency_keys');
}
