import { runRetention } from '../src/retention/run';
import type { ActivityDeps } from './deps';

/** Side effects of the retention workflow; the settings come from the worker's configuration. */
export function retentionActivities({ db, logger, config }: ActivityDeps) {
  return {
    runRetention: (at: string) =>
      runRetention(db, { retentionDays: config.RETENTION_DAYS, bodyRetentionDays: config.BODY_RETENTION_DAYS }, Date.parse(at), logger),
  };
}

/** The activities of the retention workflow (workflows/retention.ts): the one type that workflow imports. */
export type RetentionActivities = ReturnType<typeof retentionActivities>;
