import type { Knex } from 'knex';

/**
 * Webhook delivery operations beyond Svix (issue 28, docs/webhooks.md):
 * - secret rotation: the secret a rotation replaced stays valid (encrypted like the current one,
 *   bound to the same webhook id) until `previous_secret_expires_at`;
 * - auto-disable of failing endpoints: `consecutive_failures` (dead-lettered deliveries since the
 *   last delivered one) and `failing_since` (the first of them) are written only on the failure
 *   path; `disabled_reason` / `disabled_at` say why and when the service set is_active false.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhooks
      add column previous_secret_ciphertext text,
      add column previous_master_key_id text,
      add column previous_secret_expires_at timestamptz,
      add column disabled_reason text check (disabled_reason in ('failing')),
      add column disabled_at timestamptz,
      add column consecutive_failures integer not null default 0,
      add column failing_since timestamptz;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhooks
      drop column if exists previous_secret_ciphertext,
      drop column if exists previous_master_key_id,
      drop column if exists previous_secret_expires_at,
      drop column if exists disabled_reason,
      drop column if exists disabled_at,
      drop column if exists consecutive_failures,
      drop column if exists failing_since;
  `);
}
