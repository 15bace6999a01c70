import type { Db } from '../../db/knex';
import type { Logger } from '../../logger';
import { recordAttempt, type AttemptRecord } from '../attempts';
import { NO_EVIDENCE, type AttemptEvidence } from '../evidence';
import { RECOVERY_CONCURRENCY } from '../policy';
import type { DeliveryRecordFields } from '../queries';
import { sendSigned, validSecrets, type SendDeps } from '../send';
import * as q from './queries';

/**
 * The work of a recovery (workflow `webhook-recovery-<id>`, activities in
 * activities/webhook-recoveries.ts): page after page of the window's matching deliveries, each
 * sent once more (one attempt) at most RECOVERY_CONCURRENCY at a time.
 *
 * At most once per (recovery, delivery), whatever the crashes: a delivery is claimed (its next
 * attempt number and the recovery's claim row, one statement) before it is sent, and its outcome
 * recorded with the claim row's in one statement. A page run again after a worker died skips every
 * claimed delivery; one claimed without an outcome (the worker died between the claim and the
 * record) is recorded `interrupted` and not sent again by this recovery (a later one may).
 */
export interface RecoveryRunDeps extends SendDeps {
  db: Db;
  logger: Logger;
}

export interface PageInput {
  recoveryId: string;
  cursor: q.RecoveryCursor | null;
  limit: number;
}

export interface PageResult {
  /** Deliveries the page held. */
  count: number;
  cursor: q.RecoveryCursor | null;
  /** No page after this one. */
  done: boolean;
  /** The recovery must stop: cancelled meanwhile (the API), or its webhook was deleted. */
  stopped?: 'not_running' | 'webhook_deleted';
}

const INTERRUPTED = 'attempt interrupted: the worker stopped before its outcome was recorded';
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/**
 * What a recovery attempt sets on the record: delivered ends it; a failure leaves the status (failed, dead_lettered) as
 * it was.
 */
function recoveryFields(
  ok: boolean,
  startedAt: Date,
  durationMs: number,
  httpStatus: number | null,
  errorMessage: string | null,
): DeliveryRecordFields {
  const common = {
    http_status: httpStatus,
    error_message: errorMessage,
    duration_ms: durationMs,
    last_attempt_at: startedAt.toISOString(),
  };
  if (!ok) return common;
  return {
    ...common,
    status: 'delivered',
    delivered_at: new Date(startedAt.getTime() + durationMs).toISOString(),
    next_retry_at: null,
    dlq_at: null,
    dlq_reason: null,
  };
}

function attemptOf(
  recoveryId: string,
  number: number,
  startedAt: Date,
  o: { durationMs: number; httpStatus: number | null; errorMessage: string | null },
  evidence: AttemptEvidence,
): AttemptRecord {
  return {
    number,
    source: 'recovery',
    recovery_id: recoveryId,
    started_at: startedAt,
    duration_ms: o.durationMs,
    http_status: o.httpStatus,
    error_message: o.errorMessage,
    evidence,
  };
}

/** One delivery of the page: claim, send, record; or skip it (claimed before, or no longer matching). */
async function redeliverItem(deps: RecoveryRunDeps, r: q.RecoveryRow, deliveryId: string): Promise<void> {
  const { db } = deps;
  let claimed: q.ClaimedItem | null = null;
  try {
    claimed = await q.claimItem(db, r.id, deliveryId, r.statuses);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err; // another run of this page claimed it at the same moment
  }
  if (!claimed) {
    const item = await q.findItem(db, r.id, deliveryId);
    if (!item) return void (await q.skipItem(db, r.id, deliveryId));
    if (item.outcome !== null || item.attempt === null) return;
    // Claimed by an earlier run of this page that died before recording: it may have been sent.
    const startedAt = new Date();
    const o = { durationMs: 0, httpStatus: null, errorMessage: INTERRUPTED };
    await recordAttempt(
      db,
      deliveryId,
      recoveryFields(false, startedAt, 0, null, INTERRUPTED),
      attemptOf(r.id, item.attempt, startedAt, o, NO_EVIDENCE),
      { recoveryId: r.id, outcome: 'interrupted' },
    );
    deps.metrics.webhookAttempts.inc({ outcome: 'interrupted', kind: 'recovery' });
    return;
  }
  const startedAt = new Date();
  const sent = await sendSigned(deps, 'recovery', claimed.hook, claimed.body, deliveryId);
  const fields = recoveryFields(sent.ok, startedAt, sent.durationMs, sent.httpStatus, sent.errorMessage);
  const item = { recoveryId: r.id, outcome: sent.ok ? ('delivered' as const) : ('failed' as const) };
  const streakOf = claimed.hook.consecutive_failures ? r.webhook_id : undefined; // a success ends it
  const attempt = attemptOf(r.id, claimed.attempt, startedAt, sent, sent.evidence);
  await recordAttempt(db, deliveryId, fields, attempt, item, streakOf);
}

/**
 * Runs `fn` over `items`, `n` at a time. Stops taking new items once `stop()` says so or one
 * failed; the others in flight finish before the first error is thrown (no send outlives its page run).
 */
async function pool<T>(items: T[], n: number, stop: () => boolean, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !stop() && !failure) {
      try {
        await fn(items[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
  if (failure) throw failure.error;
}

/**
 * One page: the next `limit` matching deliveries after `cursor`, each redelivered (at most
 * RECOVERY_CONCURRENCY in flight), then the counters folded. `signal` (the activity's cancellation)
 * stops taking new deliveries; those in flight finish and are recorded.
 */
export async function recoverPage(
  deps: RecoveryRunDeps,
  input: PageInput,
  signal: AbortSignal,
  beat: () => void,
): Promise<PageResult> {
  const r = await q.recoveryById(deps.db, input.recoveryId);
  if (!r || r.status !== 'running') return { count: 0, cursor: input.cursor, done: true, stopped: 'not_running' };
  if (r.webhook_deleted) return { count: 0, cursor: input.cursor, done: true, stopped: 'webhook_deleted' };
  const rows = await q.recoverablePage(deps.db, r, input.cursor, input.limit);
  if (rows.length) {
    // A secret that cannot be decrypted fails the page before anything is claimed (claimed items would end
    // `interrupted`).
    validSecrets(deps.keyring, await deps.db('webhooks').where({ id: r.webhook_id }).first(), Date.now());
  }
  // The API marks a cancelled recovery at once; the workflow's cancel reaches the page only with a
  // heartbeat answer (throttled to seconds), so the row is looked at every second too.
  let halted = false;
  const watch = setInterval(() => {
    q.recoveryStatus(deps.db, r.id).then(
      (s) => (halted ||= s !== 'running'),
      () => undefined,
    );
  }, 1_000);
  try {
    await pool(
      rows,
      RECOVERY_CONCURRENCY,
      () => signal.aborted || halted,
      async (row) => {
        await redeliverItem(deps, r, row.id);
        beat();
      },
    );
  } finally {
    clearInterval(watch);
  }
  await q.foldCounters(deps.db, r.id);
  if (halted) return { count: rows.length, cursor: input.cursor, done: true, stopped: 'not_running' };
  const last = rows.at(-1);
  return {
    count: rows.length,
    cursor: last ? { at: last.at, id: last.id } : input.cursor,
    done: rows.length < input.limit,
  };
}

/** The recovery's end: counters folded a last time, status set unless it ended already (a cancel from the API). */
export async function finishRecovery(
  db: Db,
  recoveryId: string,
  status: 'completed' | 'cancelled' | 'failed',
  error?: string,
): Promise<void> {
  await q.foldCounters(db, recoveryId);
  await q.endRecovery(db, recoveryId, status, error ? error.slice(0, 1000) : null);
}
