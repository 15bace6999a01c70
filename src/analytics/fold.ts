import type { Knex } from 'knex';
import type { Logger } from '../logger';
import type { RequestRow } from '../proxy/request-row';
import { applyEndUserDeltas, endUserDeltas, mergeEndUserDeltas, type EndUserDeltas } from './end-user-writer';
import { applyRollupDeltas, mergeRollupDeltas, rollupDeltas, type RollupDelta } from './rollup-writer';

/**
 * Rollups without write amplification. Updating a rollup row per dimension value and an end-user
 * row per user in every request-log batch made the writer three times slower (a batch of 500
 * calls touches ~500 end users); so each batch stores ONE row of deltas, in the transaction that
 * inserts its request rows (never lost, never counted twice, a replayed journal included), and
 * the fold adds many batches' deltas to the rollups at once, in a transaction that deletes them.
 * Reads see folded rollups plus pending deltas (the `request_rollups_live` view), so answers are
 * exact the moment the request rows commit.
 *
 * The api folds shortly after its commits; a Temporal Schedule (every minute) folds whatever a
 * stopped process left.
 */
export async function recordDeltas(trx: Knex.Transaction, rows: readonly RequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  const users = endUserDeltas(rows);
  await trx.raw('insert into rollup_deltas (rollups, users) values (?::jsonb, ?::jsonb)', [JSON.stringify(rollupDeltas(rows)), JSON.stringify(users)]);
}

/** Folds up to `limit` pending delta rows; returns how many. Concurrent folds take disjoint rows. */
export async function foldDeltas(db: Knex, limit = 200): Promise<number> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: { rollups: RollupDelta[]; users: EndUserDeltas }[] }>(
      `delete from rollup_deltas where id in (select id from rollup_deltas order by id limit ? for update skip locked) returning rollups, users`,
      [limit],
    );
    if (rows.length === 0) return 0;
    await applyRollupDeltas(trx, mergeRollupDeltas(rows.map((r) => r.rollups)));
    await applyEndUserDeltas(trx, mergeEndUserDeltas(rows.map((r) => r.users)));
    return rows.length;
  });
}

/** Folds until nothing is pending. */
export async function foldAll(db: Knex): Promise<number> {
  let total = 0;
  for (let n = await foldDeltas(db); n > 0; n = await foldDeltas(db)) total += n;
  return total;
}

export interface RollupFolder {
  /** A batch committed: fold soon (debounced; never two folds at once in this process). */
  poke(): void;
  /** Folds what is pending and waits (shutdown, tests). */
  drain(): Promise<void>;
}

/** Debounced folding after commits: at most one fold every `delayMs`, so busy periods fold many batches at once. */
export function createRollupFolder(db: Knex, logger: Logger, delayMs = 200): RollupFolder {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    timer = undefined;
    running = running
      .then(() => foldAll(db))
      .then(() => undefined)
      .catch((err) => logger.warn({ err }, 'rollup fold failed; the next fold or the schedule retries'));
  };
  return {
    poke() {
      timer ??= setTimeout(run, delayMs);
      timer.unref?.();
    },
    async drain() {
      if (timer) clearTimeout(timer), run();
      await running;
    },
  };
}
