import type { ActivityDeps } from './deps';
import { alertActivities } from './alerts';
import { analyticsActivities } from './analytics';
import { anomalyActivities } from './anomalies';
import { retentionActivities } from './retention';
import { recommendationActivities } from './recommendations';
import { securityActivities } from './security';
import { evalRunActivities } from './eval-runs';
import { experimentActivities } from './experiments';
import { exportActivities } from './exports';
import { systemActivities } from './system';
import { webhookActivities } from './webhooks';
import { webhookRecoveryActivities } from './webhook-recoveries';

export type { ActivityDeps } from './deps';

/** Every activity the worker registers, bound to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...systemActivities(deps),
    ...analyticsActivities(deps),
    ...anomalyActivities(deps),
    ...retentionActivities(deps),
    ...recommendationActivities(deps),
    ...securityActivities(deps),
    ...evalRunActivities(deps),
    ...experimentActivities(deps),
    ...webhookActivities(deps),
    ...webhookRecoveryActivities(deps),
    ...alertActivities(deps),
    ...exportActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
