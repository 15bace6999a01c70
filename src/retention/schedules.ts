import type { ScheduleDef } from '../temporal/schedules';

/** The request log's daily upkeep (src/schedules.ts makes it exist). */
export const retentionSchedules = (): ScheduleDef[] => [
  {
    name: 'retention',
    note:
      'Creates the coming monthly partitions of the request log; drops months past RETENTION_DAYS, ' +
      'empties bodies past BODY_RETENTION_DAYS (docs/retention.md)',
    spec: { calendars: [{ hour: 3, minute: 17 }] },
    workflowType: 'retentionWorkflow',
    runTimeout: '6 hours',
  },
];
