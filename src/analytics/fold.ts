import type { Knex } from 'knex';
import type { Logger } from '../logger';
import { foldSpanRollups } from './span-rollups';

/**
 * Rollups without write amplification. Updating a rollup row per dimension value and an end-user
 * row per user in every request-log batch made the writer three times slower (a batch of 500
 * calls touches ~500 end users). So a batch only records, in the transaction that inserts its
 * rows, that they are pending (their ids: never lost, never counted twice, a replayed journal
 * included); the fold adds many pending batches to the rollups and end-user tables at once, in
 * SQL (`fold_rollups`, migrations/007b_analytics_fold.ts), in a transaction that deletes them.
 * Reads see folded rollups plus the pending rows (`request_rollups_live`), so answers are exact
 * the moment the request rows commit.
 *
 * The api folds about a second after its commits; a Temporal Schedule (every minute) folds what a
 * stopped process left.
 */
/**
 * The pending mark of a batch, as a statement over a CTE of its just-inserted rows (`id`,
 * `created_at`): src/requests/writer.ts stores a batch and all that goes with it in one statement.
 * `hi` is exclusive in rollup_cells: one millisecond past the newest row (rows carry milliseconds).
 * Only the two columns, not RequestRow: naming anything of src/requests here would make the two
 * folders a cycle. Nothing when the CTE is empty.
 */
export const pendingFromSql = (cte: string) =>
  `insert into rollup_pending (ids, lo, hi)
   select array_agg(id), min(created_at), max(created_at) + interval '1 millisecond' from ${cte} having count(*) > 0`;

/** Folds up to `limit` pending batches; returns how many. Concurrent folds take disjoint batches. */
async function foldPending(db: Knex, limit = 100): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: number }[] }>('select fold_rollups(?) as n', [limit]);
  return rows[0]!.n;
}

/** Folds until nothing is pending: request batches, then the span rollups' deltas. */
export async function foldAll(db: Knex): Promise<number> {
  let total = 0;
  for (let n = await foldPending(db); n > 0; n = await foldPending(db)) total += n;
  return total + (await foldSpanRollups(db));
}

export interface RollupFolder {
  /** A batch committed: fold soon (debounced; never two folds at once in this process). */
  poke(): void;
  /** Folds what is pending and waits (shutdown, tests). */
  drain(): Promise<void>;
}

/** Debounced folding after commits: at most one fold per `delayMs`, so busy periods fold many batches at once. */
export function createRollupFolder(db: Knex, logger: Logger, delayMs = 3000): RollupFolder {
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
      if (timer) {
        clearTimeout(timer);
        run();
      }
      await running;
    },
  };
}
