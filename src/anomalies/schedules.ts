import type { ScheduleDef } from '../temporal/schedules';

/** The anomalies feature's recurring job (src/schedules.ts makes it exist). */
export const anomalySchedules = (): ScheduleDef[] => [
  {
    name: 'anomaly-detection',
    note:
      'Judges the last hour of cost, volume, error rate, p95 latency and tokens per call ' +
      'against the trailing 7 days (docs/anomalies.md)',
    spec: { intervals: [{ every: '5 minutes' }] },
    workflowType: 'anomalyDetectionWorkflow',
    runTimeout: '10 minutes',
  },
];
