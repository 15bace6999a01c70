import { Context } from '@temporalio/activity';
import { recordEvaluation } from '../src/alerts/evaluate';
import { reconcileAlertSchedules } from '../src/alerts/schedules';
import { createPgAnalytics } from '../src/analytics/store';
import type { ActivityDeps } from './deps';

/** Side effects of the alert workflows. */
export function alertActivities({ db, logger }: ActivityDeps) {
  const store = createPgAnalytics(db);
  return {
    /** Evaluates a rule now and records states, history and notifications in one transaction. */
    evaluateAlertRule: (ruleId: string) => recordEvaluation({ db, store }, ruleId),
    /** Reconciles rule schedules through the worker's own client, on its task queue. */
    reconcileAlertRules: () => {
      const ctx = Context.current();
      return reconcileAlertSchedules(db, ctx.client, ctx.info.taskQueue, logger);
    },
  };
}

/** The activities of the alert workflows (workflows/alerts.ts): the one type that workflow imports. */
export type AlertActivities = ReturnType<typeof alertActivities>;
