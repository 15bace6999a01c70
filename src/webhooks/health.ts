import type { Knex } from 'knex';
import { recordSystemAudit } from '../audit/audit';
import type { Config } from '../config';
import type { WebhookRow } from './queries';
import { toView } from './view';

type Conn = Knex | Knex.Transaction;

/**
 * Auto-disable of failing endpoints (docs/webhooks.md#auto-disable). Counted only on the failure
 * path: each dead-lettered delivery adds one to `consecutive_failures` (the first sets
 * `failing_since`); a delivered attempt of a webhook that had a streak at its claim resets both in
 * the statement that records it (a healthy webhook's statements are unchanged). Once the streak is
 * both old enough and long enough, the webhook is set inactive with `disabled_reason: failing`.
 */
export interface AutoDisableRule {
  /** How long the failures must have lasted (from the first dead-letter after the last success). */
  windowS: number;
  /** And how many dead-lettered deliveries in a row at least; 0 turns auto-disable off. */
  minFailures: number;
}

type RuleSettings = Pick<Config, 'WEBHOOK_AUTO_DISABLE_AFTER_S' | 'WEBHOOK_AUTO_DISABLE_MIN_FAILURES'>;
export const autoDisableRule = (c: RuleSettings): AutoDisableRule => ({
  windowS: c.WEBHOOK_AUTO_DISABLE_AFTER_S,
  minFailures: c.WEBHOOK_AUTO_DISABLE_MIN_FAILURES,
});

/** Columns that start a webhook's record afresh: a re-enable (PATCH is_active true) sets them. */
export const HEALTHY = {
  disabled_reason: null,
  disabled_at: null,
  consecutive_failures: 0,
  failing_since: null,
} as const;

/** SQL of the reset on success: `webhookIdSql` is an expression giving the webhook's id. */
export const resetFailingSql = (webhookIdSql: string) =>
  `update webhooks set consecutive_failures = 0, failing_since = null
    where id = ${webhookIdSql} and consecutive_failures > 0`;

/** A delivered attempt outside recordAttempt (the test delivery): the streak ends. */
export const resetFailing = (db: Conn, webhookId: string) => db.raw(resetFailingSql('?'), [webhookId]);

/**
 * A delivery of this webhook was dead-lettered: counts it, and disables the webhook when the rule
 * is met. Returns whether it did. Runs in the attempt activity after the final attempt's outcome is
 * recorded (a worker dying in between loses one count, never adds one).
 */
export async function noteDeadLetter(db: Knex, webhookId: string, rule: AutoDisableRule): Promise<boolean> {
  if (rule.minFailures <= 0) return false;
  const { rows } = await db.raw<{ rows: { consecutive_failures: number; due: boolean }[] }>(
    `update webhooks set consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, now())
      where id = ? and is_active and deleted_at is null
      returning consecutive_failures, failing_since <= now() - make_interval(secs => ?) as due`,
    [webhookId, rule.windowS],
  );
  const r = rows[0];
  if (!r || !r.due || r.consecutive_failures < rule.minFailures) return false;
  return disableFailing(db, webhookId);
}

/** Sets the webhook inactive (reason `failing`) and writes the system audit row, in one transaction. */
async function disableFailing(db: Knex, webhookId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const live = trx('webhooks').where({ id: webhookId, is_active: true }).whereNull('deleted_at');
    const before = (await live.forUpdate().first()) as WebhookRow | undefined;
    if (!before) return false; // paused, deleted or disabled meanwhile
    const [after] = (await trx('webhooks')
      .where({ id: webhookId })
      .update({ is_active: false, disabled_reason: 'failing', disabled_at: trx.fn.now() })
      .returning('*')) as (WebhookRow & { consecutive_failures: number; failing_since: Date })[];
    await recordSystemAudit(trx, {
      orgId: before.org_id,
      label: 'webhook auto-disable',
      action: 'webhook.auto_disabled',
      resourceType: 'webhook',
      resourceId: webhookId,
      before: toView(before),
      after: {
        ...toView(after!),
        consecutive_failures: after!.consecutive_failures,
        failing_since: after!.failing_since.toISOString(),
      },
    });
    return true;
  });
}
