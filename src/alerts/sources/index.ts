import { costPerUser, requestSources } from './requests';
import type { MeasureSource } from './types';

/**
 * The alert types: one measure source each. `anomaly` and `security_finding` (issue 13) are not
 * here yet: their tables come with the anomaly detector and the security scanner; each will be one
 * file implementing MeasureSource (e.g. a count of new rows in the window) added to this map.
 */
export const measureSources = {
  ...requestSources,
  cost_per_user: costPerUser,
} satisfies Record<string, MeasureSource>;

export type AlertType = keyof typeof measureSources;
export const ALERT_TYPES = Object.keys(measureSources) as [AlertType, ...AlertType[]];
export type { MeasureSource, Observation, RuleScope, SourceDeps } from './types';
