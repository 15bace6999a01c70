import type { Knex } from 'knex';

/**
 * Per-webhook custom headers (issue 28, docs/webhooks.md "Custom headers"): the set is stored
 * AES-256-GCM encrypted as one JSON object (values may be credentials), bound to the webhook id
 * like the secret; `header_names` is what reads show.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhooks
      add column headers_ciphertext text,
      add column headers_master_key_id text,
      add column header_names text[] not null default '{}';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhooks
      drop column if exists headers_ciphertext,
      drop column if exists headers_master_key_id,
      drop column if exists header_names;
  `);
}
