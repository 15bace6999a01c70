import { proxyActivities } from '@temporalio/workflow';
import type { AlertActivities } from '../activities/alerts';

const { evaluateAlertRule, reconcileAlertRules } = proxyActivities<AlertActivities>({
  startToCloseTimeout: '2 minutes',
  // An evaluation that keeps failing is dropped: the next tick of the schedule evaluates again.
  retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
});

/**
 * One evaluation of one alert rule, started by the rule's Temporal Schedule `alert-rule-<id>`:
 * reads the window, applies the state machine and records it (alert.triggered goes through the
 * event outbox in that same transaction). Its history shows the groups, events and notifications.
 */
export async function alertEvaluationWorkflow(ruleId: string) {
  return evaluateAlertRule(ruleId);
}

/** Run by the `alert-reconcile` schedule: makes every rule's schedule match its rule. */
export async function alertReconcileWorkflow() {
  return reconcileAlertRules();
}
