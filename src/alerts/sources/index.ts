import { anomalySource, securityFindingSource } from './findings';
import { costPerUser, requestSources } from './requests';
import type { MeasureSource } from './types';

/** The alert types: one measure source each (docs/alerts.md). */
export const measureSources = {
  ...requestSources,
  cost_per_user: costPerUser,
  anomaly: anomalySource,
  security_finding: securityFindingSource,
} satisfies Record<string, MeasureSource>;

export type AlertType = keyof typeof measureSources;
export const ALERT_TYPES = Object.keys(measureSources) as [AlertType, ...AlertType[]];
export type { MeasureSource, Observation } from './types';
