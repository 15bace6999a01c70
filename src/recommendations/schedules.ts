import type { ScheduleDef } from '../temporal/schedules';

/** The recommendations' hourly recomputation (src/schedules.ts makes it exist). */
export const recommendationSchedules = (): ScheduleDef[] => [
  {
    name: 'recommendations',
    note: 'Recomputes every project’s recommendations from its last 7 days of calls (docs/recommendations.md)',
    spec: { intervals: [{ every: '1 hour' }] },
    workflowType: 'recommendationsWorkflow',
    runTimeout: '30 minutes',
  },
];
