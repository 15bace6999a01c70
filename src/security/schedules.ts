import type { ScheduleDef } from '../temporal/schedules';

/** The security feature's recurring job (src/schedules.ts makes it exist). */
export const securitySchedules = (): ScheduleDef[] => [
  {
    name: 'security-scan',
    note:
      'Scans newly stored bodies and span/trace input and output for leaked secrets, PII ' +
      'and prompt injection (docs/security.md)',
    spec: { intervals: [{ every: '1 minute' }] },
    workflowType: 'securityScanWorkflow',
    runTimeout: '15 minutes',
  },
];
