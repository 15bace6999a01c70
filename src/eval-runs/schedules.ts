import type { ScheduleDef } from '../temporal/schedules';

/** The evals feature's recurring job (src/schedules.ts makes it exist). */
export const evalSchedules = (): ScheduleDef[] => [
  {
    name: 'online-evaluation',
    note: 'Scores new requests and completed traces matching each online evaluator, sampled (docs/evals.md)',
    spec: { intervals: [{ every: '1 minute' }] },
    workflowType: 'onlineEvaluationWorkflow',
    runTimeout: '30 minutes',
  },
];
