import { deleteExpiredIdempotencyKeys } from '../src/http/idempotency';
import { runRetention } from '../src/retention/run';
import type { ActivityDeps } from './deps';

/** Side effects of the retention workflow; the settings come from the worker's configuration. */
export function retentionActivities({ db, logger, config }: ActivityDeps) {
  return {
    // Expired idempotency keys go in the same daily run: one activity, so the workflow's code is unchanged.
    runRetention: async (at: string) => {
      const settings = { retentionDays: config.RETENTION_DAYS, bodyRetentionDays: config.BODY_RETENTION_DAYS };
      const out = await runRetention(db, settings, Date.parse(at), logger);
      const idempotencyKeysDeleted = await deleteExpiredIdempotencyKeys(db);
      return { ...out, idempotencyKeysDeleted };
    },
  };
}

/** The activities of the retention workflow (workflows/retention.ts): the one type that workflow imports. */
export type RetentionActivities = ReturnType<typeof retentionActivities>;
