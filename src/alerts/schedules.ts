import type { Client, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from '../logger';
import type { BackgroundService } from '../context';
import { scheduleId, type ScheduleDef } from '../temporal/schedules';
import { temporalSdk } from '../temporal/client';
import { alertRuleSummary } from '../temporal/summaries';
import * as q from './queries';

/**
 * Each alert rule owns a Temporal Schedule `<task queue>/alert-rule-<id>` (docs/alerts.md):
 * - interval: ceil(window / 12) minutes, between 1 and 15 (a 5-minute window every minute, an hour
 *   every 5 minutes, 3 hours and more every 15), so a breach is seen within 1/12 of its window;
 * - overlap SKIP (an evaluation still running is never stacked), catch-up window 1 minute (each
 *   run evaluates "now": replaying missed ticks after an outage would only repeat the same answer);
 * - paused exactly when the rule is inactive.
 * The rule row is the truth; the reconcile makes Temporal match it (worker start and every 5 minutes).
 */
const ALERT_WORKFLOW = 'alertEvaluationWorkflow';
const ruleScheduleName = (ruleId: string) => `alert-rule-${ruleId}`;
export const ruleScheduleId = (taskQueue: string, ruleId: string) => scheduleId(taskQueue, ruleScheduleName(ruleId));
export const intervalMinutes = (windowMinutes: number) => Math.min(15, Math.max(1, Math.ceil(windowMinutes / 12)));
const CATCHUP_WINDOW = '1 minute';

type RuleLike = Pick<q.RuleRow, 'id' | 'name' | 'window_minutes' | 'is_active' | 'org_id'>;

/** Creates the rule's schedule or brings it in line (spec, action, policies, paused). */
export async function syncRuleSchedule(client: Client, taskQueue: string, rule: RuleLike): Promise<void> {
  const id = ruleScheduleId(taskQueue, rule.id);
  const spec = { intervals: [{ every: `${intervalMinutes(rule.window_minutes)} minutes` }] };
  const action: ScheduleOptionsStartWorkflowAction<never> = {
    type: 'startWorkflow',
    workflowType: ALERT_WORKFLOW,
    args: [rule.id] as never,
    taskQueue,
    workflowId: id,
    workflowRunTimeout: '5 minutes',
    staticSummary: alertRuleSummary(rule, spec),
  };
  const { ScheduleAlreadyRunning, ScheduleOverlapPolicy } = temporalSdk();
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW };
  const pausedNote = rule.is_active ? '' : ': paused because the rule is disabled';
  const note = `Alert rule "${rule.name}" (org ${rule.org_id})${pausedNote}`;
  try {
    await client.schedule.create({ scheduleId: id, spec, action, policies, state: { paused: !rule.is_active, note } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(id).update((prev) => ({
      ...prev,
      spec,
      action: { ...prev.action, ...action } as never,
      policies: { ...prev.policies, ...policies },
      state: { ...prev.state, paused: !rule.is_active, note },
    }));
  }
}

export async function deleteRuleSchedule(client: Client, taskQueue: string, ruleId: string): Promise<void> {
  try {
    await client.schedule.getHandle(ruleScheduleId(taskQueue, ruleId)).delete();
  } catch (err) {
    if (!(err instanceof temporalSdk().ScheduleNotFoundError)) throw err;
  }
}

export interface ReconcileResult {
  synced: number;
  deleted: number;
  failed: number;
}

/**
 * Makes the schedules match the rules: creates missing ones, updates those behind their rule's
 * version or in the wrong paused state, deletes those whose rule is gone. Per-rule failures are
 * recorded on the rule (schedule_error) and retried by the next reconcile.
 */
export async function reconcileAlertSchedules(
  db: Knex,
  client: Client,
  taskQueue: string,
  logger: Logger,
): Promise<ReconcileResult> {
  const prefix = scheduleId(taskQueue, 'alert-rule-');
  const existing = new Map<string, boolean>();
  for await (const s of client.schedule.list())
    if (s.scheduleId.startsWith(prefix)) existing.set(s.scheduleId, s.state.paused);
  const rules = await q.allRuleRows(db);
  const out: ReconcileResult = { synced: 0, deleted: 0, failed: 0 };
  for (const rule of rules) {
    const id = ruleScheduleId(taskQueue, rule.id);
    const paused = existing.get(id);
    existing.delete(id);
    if (rule.schedule_version === rule.version && paused === !rule.is_active) continue;
    try {
      await syncRuleSchedule(client, taskQueue, rule);
      await q.markScheduleSynced(db, rule.id, rule.version);
      out.synced++;
    } catch (err) {
      out.failed++;
      await q.markScheduleError(db, rule.id, (err as Error).message);
      logger.warn({ err, ruleId: rule.id }, 'could not sync an alert rule schedule');
    }
  }
  for (const id of existing.keys()) {
    await deleteRuleSchedule(client, taskQueue, id.slice(prefix.length));
    out.deleted++;
  }
  return out;
}

/** The reconcile's own schedule (src/schedules.ts). */
export const alertSchedules = (): ScheduleDef[] => [
  {
    name: 'alert-reconcile',
    note: 'Makes every alert rule schedule match its rule: created, updated, paused, deleted (docs/alerts.md)',
    spec: { intervals: [{ every: '5 minutes' }] },
    workflowType: 'alertReconcileWorkflow',
    runTimeout: '10 minutes',
  },
];

/** Worker role: a reconcile at start (rules created while Temporal was down get their schedules now). */
export const alertReconcileService: BackgroundService = async (ctx, worker) => {
  const done = reconcileAlertSchedules(ctx.db, worker.client, ctx.config.TEMPORAL_TASK_QUEUE, ctx.logger)
    .then((r) => ctx.logger.info(r, 'alert schedules reconciled'))
    .catch((err) =>
      ctx.logger.warn({ err }, 'alert schedule reconcile at start failed; the alert-reconcile schedule retries'),
    );
  return { stop: () => done };
};
