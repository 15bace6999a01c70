import type { Knex } from 'knex';

/**
 * Webhooks: registrations (secret AES-256-GCM encrypted, soft-deleted so delivery history and
 * in-flight workflows keep their rows), one delivery record per (event, webhook), and the event
 * outbox that other features write in their own transactions.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table webhooks (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      url text not null check (url like 'https://%'),
      events text[] not null default '{}',
      is_active boolean not null default true,
      secret_ciphertext text not null,
      master_key_id text not null,
      secret_hint text not null,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    -- Listing, the per-organization limit, and the outbox's "anyone subscribed?" check.
    create index webhooks_org_live_idx on webhooks (org_id, created_at) where deleted_at is null;

    create table webhook_deliveries (
      id uuid primary key,
      webhook_id uuid not null references webhooks(id) on delete cascade,
      org_id uuid not null references organizations(id) on delete cascade,
      event_type text not null,
      status text not null default 'pending'
        check (status in ('pending', 'delivered', 'failed', 'dead_lettered', 'cancelled')),
      -- The exact bytes sent on every attempt (signature is over these).
      body text not null,
      http_status integer,
      error_message text,
      duration_ms integer,
      attempt_count integer not null default 0,
      first_attempt_at timestamptz,
      last_attempt_at timestamptz,
      next_retry_at timestamptz,
      dlq_at timestamptz,
      dlq_reason text,
      delivered_at timestamptz,
      stop_reason text,
      workflow_id text,
      workflow_started_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    -- GET /webhooks/:id/deliveries (10 newest).
    create index webhook_deliveries_webhook_time_idx on webhook_deliveries (webhook_id, created_at desc, id desc);
    -- Disable/delete: find the webhook's deliveries that may still retry.
    create index webhook_deliveries_open_idx on webhook_deliveries (webhook_id) where status in ('pending', 'failed');
    -- Dispatcher: deliveries whose workflow could not be started yet (Temporal down).
    create index webhook_deliveries_unstarted_idx on webhook_deliveries (created_at)
      where workflow_started_at is null and workflow_id is not null;
    create index webhook_deliveries_org_idx on webhook_deliveries (org_id);

    create table event_outbox (
      id bigint generated always as identity primary key,
      org_id uuid not null references organizations(id) on delete cascade,
      kind text not null check (kind in ('request.created', 'trace.completed', 'alert.triggered')),
      -- json (not jsonb) keeps the emitter's key order for the body that is built from it.
      payload json not null,
      created_at timestamptz not null default now()
    );

    create trigger webhooks_updated_at before update on webhooks for each row execute function set_updated_at();
    create trigger webhook_deliveries_updated_at before update on webhook_deliveries
      for each row execute function set_updated_at();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists event_outbox, webhook_deliveries, webhooks cascade');
}
