import type { Client, ScheduleOptionsStartWorkflowAction, ScheduleSpec } from '@temporalio/client';
import type { Logger } from '../logger';
import { temporalSdk } from './client';
import { scheduledRunSummary } from './summaries';

/**
 * A recurring job of the service, run as a Temporal Schedule so operators see it (and its past
 * runs) in the Temporal UI, and so it survives restarts: anomaly detection, recommendations,
 * retention, alert rules. Features declare their schedules; the worker role makes them exist.
 */
export interface ScheduleDef {
  /** Stable name; the Schedule id is `<task queue>/<name>` so two deployments never share one. */
  name: string;
  /** What an operator reads in the Temporal UI. */
  note: string;
  spec: ScheduleSpec;
  workflowType: string;
  args?: unknown[];
  /** Runs longer than this are cut short (default 1 hour). */
  runTimeout?: string;
}

export const scheduleId = (taskQueue: string, name: string) => `${taskQueue}/${name}`;

/**
 * Creates every schedule, or brings an existing one up to date (spec, action, note) without
 * touching its history or a pause an operator set. Overlapping runs are skipped: a slow run is
 * never stacked by the next tick; missed ticks within 10 minutes are caught up once.
 */
export async function ensureSchedules(
  client: Client,
  taskQueue: string,
  defs: ScheduleDef[],
  logger: Logger,
): Promise<void> {
  const { ScheduleAlreadyRunning, ScheduleOverlapPolicy } = temporalSdk();
  for (const def of defs) {
    const id = scheduleId(taskQueue, def.name);
    const action: ScheduleOptionsStartWorkflowAction<never> = {
      type: 'startWorkflow',
      workflowType: def.workflowType,
      args: (def.args ?? []) as never,
      taskQueue,
      workflowId: `${id}`,
      workflowRunTimeout: def.runTimeout ?? '1 hour',
      // Shown in the Web UI's workflow list for every run the schedule starts.
      staticSummary: scheduledRunSummary(def),
    };
    const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' };
    try {
      await client.schedule.create({ scheduleId: id, spec: def.spec, action, policies, state: { note: def.note } });
      logger.info({ schedule: id }, 'schedule created');
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await client.schedule.getHandle(id).update((prev) => ({
        ...prev,
        spec: def.spec,
        action: { ...prev.action, ...action } as never,
        policies: { ...prev.policies, ...policies },
        state: { ...prev.state, note: def.note },
      }));
    }
  }
}
