import type { Knex } from 'knex';

/**
 * Webhook delivery operations (docs/webhooks.md):
 * - `webhook_delivery_attempts`: every attempt of a delivery, not only the latest outcome, written
 *   in the statement that records the outcome on the delivery. Never the signature nor the secret.
 *   Attempts go with their delivery (on delete cascade).
 * - `webhook_deliveries.redeliveries`: how many redelivery runs an operator started; run n is the
 *   workflow `webhook-delivery-<id>-redeliver-<n>`.
 * - `webhook_recoveries` and their claim rows `webhook_recovery_items`: one row per delivery a
 *   recovery took up, inserted before its send, so a delivery is sent at most once per recovery
 *   whatever crashes or continue-as-new happen.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhook_deliveries add column redeliveries integer not null default 0;
    -- Recoveries page through a webhook's failed and dead-lettered deliveries by creation time.
    create index webhook_deliveries_recoverable_idx on webhook_deliveries (webhook_id, created_at, id)
      where status in ('failed', 'dead_lettered');

    create table webhook_recoveries (
      id uuid primary key,
      webhook_id uuid not null references webhooks(id) on delete cascade,
      org_id uuid not null references organizations(id) on delete cascade,
      since timestamptz not null,
      until timestamptz not null,
      statuses text[] not null,
      status text not null default 'running' check (status in ('running', 'completed', 'cancelled', 'failed')),
      matched integer not null default 0,
      redelivered integer not null default 0,
      delivered integer not null default 0,
      failed integer not null default 0,
      skipped integer not null default 0,
      workflow_id text not null,
      error text,
      created_by text,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    );
    create index webhook_recoveries_webhook_idx on webhook_recoveries (webhook_id, created_at desc, id desc);
    -- One running recovery per webhook: two over the same window would send a delivery twice.
    create unique index webhook_recoveries_one_running_idx on webhook_recoveries (webhook_id) where status = 'running';

    create table webhook_recovery_items (
      recovery_id uuid not null references webhook_recoveries(id) on delete cascade,
      delivery_id uuid not null references webhook_deliveries(id) on delete cascade,
      -- The attempt number the recovery claimed on the delivery; null when skipped.
      attempt integer,
      outcome text check (outcome in ('delivered', 'failed', 'interrupted', 'skipped')),
      -- Folded into the recovery's counters (exactly once, whatever retries the page activity had).
      counted boolean not null default false,
      primary key (recovery_id, delivery_id)
    );
    create index webhook_recovery_items_uncounted_idx on webhook_recovery_items (recovery_id)
      where not counted and outcome is not null;
    create index webhook_recovery_items_delivery_idx on webhook_recovery_items (delivery_id);

    create table webhook_delivery_attempts (
      delivery_id uuid not null references webhook_deliveries(id) on delete cascade,
      number integer not null check (number >= 1),
      source text not null check (source in ('delivery', 'test', 'redelivery', 'recovery')),
      redelivery integer,
      recovery_id uuid references webhook_recoveries(id) on delete set null,
      started_at timestamptz not null,
      duration_ms integer not null,
      http_status integer,
      error_message text,
      -- [{status, location}] per redirect followed or refused, in order.
      redirects jsonb not null default '[]',
      -- First 1 KB of the last response's headers (name: value lines) and body, secrets scrubbed.
      response_headers text,
      response_body text,
      response_body_truncated boolean not null default false,
      primary key (delivery_id, number)
    );
    create index webhook_delivery_attempts_recovery_idx on webhook_delivery_attempts (recovery_id)
      where recovery_id is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table if exists webhook_delivery_attempts, webhook_recovery_items, webhook_recoveries;
    drop index if exists webhook_deliveries_recoverable_idx;
    alter table webhook_deliveries drop column if exists redeliveries;
  `);
}
