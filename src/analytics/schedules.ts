import type { ScheduleDef } from '../temporal/schedules';

/** The analytics feature's recurring jobs (src/schedules.ts makes them exist). */
export const analyticsSchedules = (): ScheduleDef[] => [
  {
    name: 'analytics-fold',
    note: 'Folds pending request-log batches into the rollups when no api process did (docs/analytics.md)',
    spec: { intervals: [{ every: '1 minute' }] },
    workflowType: 'analyticsFoldWorkflow',
    runTimeout: '10 minutes',
  },
  {
    name: 'analytics-property-keys',
    note:
      'Chooses the custom property keys kept in the hourly rollups ' +
      '(busiest keys with few values; docs/analytics.md)',
    spec: { intervals: [{ every: '1 hour' }] },
    workflowType: 'analyticsPropertyKeysWorkflow',
    runTimeout: '30 minutes',
  },
];
