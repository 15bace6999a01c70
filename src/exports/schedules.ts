import type { ScheduleDef } from '../temporal/schedules';

/** The exports feature's recurring job (src/schedules.ts makes it exist). */
export const exportSchedules = (): ScheduleDef[] => [
  {
    name: 'export-cleanup',
    note: 'Deletes export files past EXPORT_TTL_HOURS; their records stay, marked expired (docs/exports.md)',
    spec: { intervals: [{ every: '15 minutes' }] },
    workflowType: 'exportCleanupWorkflow',
    runTimeout: '30 minutes',
  },
];
