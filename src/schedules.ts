import { alertSchedules } from './alerts/schedules';
import { analyticsSchedules } from './analytics/schedules';
import { anomalySchedules } from './anomalies/schedules';
import { recommendationSchedules } from './recommendations/schedules';
import { securitySchedules } from './security/schedules';
import { evalSchedules } from './eval-runs/schedules';
import { retentionSchedules } from './retention/schedules';
import { exportSchedules } from './exports/schedules';
import type { AppContext, BackgroundService } from './context';
import { ensureSchedules, type ScheduleDef } from './temporal/schedules';

/**
 * Every recurring job of the service, feature by feature: the one list the worker role turns into
 * Temporal Schedules (src/temporal/schedules.ts). A feature exports `(config) => ScheduleDef[]`.
 */
export function buildSchedules(_ctx: AppContext): ScheduleDef[] {
  return [
    ...analyticsSchedules(),
    ...anomalySchedules(),
    ...recommendationSchedules(),
    ...securitySchedules(),
    ...evalSchedules(),
    ...retentionSchedules(),
    ...alertSchedules(),
    ...exportSchedules(),
  ];
}

/** Worker-role background service: makes the schedules exist; they then live in Temporal. */
export const scheduleService: BackgroundService = async (ctx, worker) => {
  const defs = buildSchedules(ctx);
  await ensureSchedules(worker.client, ctx.config.TEMPORAL_TASK_QUEUE, defs, ctx.logger).catch((err) =>
    // The worker still runs its workflows; the next start tries again.
    ctx.logger.error({ err }, 'could not create or update the Temporal schedules'),
  );
  return { stop: async () => undefined };
};
