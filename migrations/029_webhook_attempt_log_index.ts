import type { Knex } from 'knex';

/**
 * A webhook's attempt log (GET /webhooks/:id/attempts, issue 28) reads its attempts newest first.
 * Attempts only knew their delivery, so a page had to join every delivery the webhook ever had, and
 * with a time filter PostgreSQL scanned the whole attempts table of every organization. The
 * webhook id on each attempt (written by the insert, from its delivery) and this index make a page
 * an index range read.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhook_delivery_attempts add column webhook_id uuid;
    update webhook_delivery_attempts a set webhook_id = d.webhook_id
      from webhook_deliveries d where d.id = a.delivery_id;
    alter table webhook_delivery_attempts alter column webhook_id set not null;
    create index webhook_delivery_attempts_webhook_time_idx
      on webhook_delivery_attempts (webhook_id, started_at desc, delivery_id desc, number desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table webhook_delivery_attempts drop column if exists webhook_id');
}
