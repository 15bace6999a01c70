import type { Knex } from 'knex';

/**
 * `outcome_attempt`: the attempt number whose outcome the delivery record holds. The attempt claim
 * raises `attempt_count` before sending; the outcome write sets this. A re-run of an attempt (a
 * worker crash between recording and the workflow task completing) can so tell "this attempt's
 * outcome is recorded" (keep it: a delivered record stays delivered) from "no outcome recorded"
 * (the attempt was interrupted).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhook_deliveries add column outcome_attempt integer not null default 0;
    update webhook_deliveries set outcome_attempt = attempt_count
     where status in ('delivered', 'failed', 'dead_lettered') and last_attempt_at is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table webhook_deliveries drop column if exists outcome_attempt');
}
