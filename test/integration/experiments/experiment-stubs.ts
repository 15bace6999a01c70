import type { ExperimentActivities } from '../../../activities/experiments';
import { attemptNow } from '../../helpers/stubbed-workflow';

/** The experiment workflow's activities as plain functions, for the stubbed-workflow tests. */
type Stubbed = Pick<
  ExperimentActivities,
  'nextExperimentItems' | 'runExperimentItem' | 'failExperimentItem' | 'finishExperiment'
>;
interface Row {
  item_id: string;
  repetition: number;
  key: string;
}
type RunItem = (row: Row, attempt: number) => Promise<void>;

/** `items` items with `reps` repetitions each, in key order as pendingItems answers them. */
export const rowsOf = (items: number, reps = 2): Row[] =>
  Array.from({ length: items }, (_, i) => `i${String(i).padStart(3, '0')}`).flatMap((item_id) =>
    Array.from({ length: reps }, (_, r) => ({
      item_id,
      repetition: r + 1,
      key: `${item_id}#${String(r + 1).padStart(2, '0')}`,
    })),
  );

export function stubs(
  rows: Row[],
  runItem: RunItem = async () => undefined,
  next?: (attempt: number, after: string | null) => Promise<void>,
) {
  const log: string[] = [];
  const ran: string[] = [];
  const attempts = new Map<string, number[]>();
  let inFlight = 0;
  let maxInFlight = 0;
  const activities: Stubbed = {
    nextExperimentItems: async (_id, after, limit) => {
      log.push(`next:${after}`);
      await next?.(attemptNow(), after);
      return rows.filter((r) => after === null || r.key > after).slice(0, limit);
    },
    runExperimentItem: async (_id, itemId, repetition) => {
      const row = rows.find((r) => r.item_id === itemId && r.repetition === repetition)!;
      attempts.set(row.key, [...(attempts.get(row.key) ?? []), attemptNow()]);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await runItem(row, attemptNow());
        log.push(`run:${row.key}`);
        ran.push(row.key);
        return { status: 'completed' };
      } finally {
        inFlight--;
      }
    },
    failExperimentItem: async (_id, itemId, repetition, message) => (
      log.push(`fail:${itemId}#${repetition}:${message}`),
      true
    ),
    finishExperiment: async (_id, status, error) => (
      log.push(`finish:${status}`, ...(error ? [`finish:error:${error}`] : [])),
      true
    ),
  };
  return {
    log,
    ran,
    attempts,
    activities,
    keys: rows.map((r) => r.key),
    maxInFlight: () => maxInFlight,
    inFlight: () => inFlight,
  };
}
