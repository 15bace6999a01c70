/** Every workflow the worker runs. Deterministic code only: no I/O, no clocks, no src/ I/O modules. */
export { systemCheckWorkflow } from './system-check';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { analyticsFoldWorkflow, analyticsPropertyKeysWorkflow } from './analytics';
export { anomalyDetectionWorkflow } from './anomalies';
export { retentionWorkflow } from './retention';
export { recommendationsWorkflow } from './recommendations';
export { securityScanWorkflow } from './security';
export { evalRunWorkflow, onlineEvaluationWorkflow } from './eval-run';
export { experimentWorkflow } from './experiment';
export { alertEvaluationWorkflow, alertReconcileWorkflow } from './alerts';
export { exportWorkflow, exportCleanupWorkflow } from './export';
export { webhookRecoveryWorkflow } from './webhook-recovery';
