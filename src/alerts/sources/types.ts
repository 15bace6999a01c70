import type { Knex } from 'knex';
import type { RequestFilter } from '../../filters/request-filter';
import type { GroupBy } from '../../analytics/plan';
import type { AnalyticsStore } from '../../analytics/store';
import type { AlertFilter } from '../filter-schema';

/**
 * A measure source computes an alert type's `current_value` over a window, per group. Each alert
 * type is one entry of the registry (sources/index.ts); a type reading another table (anomalies,
 * security findings) is one more file implementing this interface.
 */
interface RuleScope {
  id: string;
  orgId: string;
  /** The projects the rule covers at evaluation time (its project, or every project of the organization). */
  projectIds: string[];
  filter: RequestFilter;
  /** The rule's filter as stored (for sources reading other tables than the request log). */
  alertFilter: AlertFilter;
  groupBy: GroupBy | null;
}

export interface Observation {
  /** '' for the whole rule (no group_by). */
  group: string;
  /** null: no value in the window (no data). */
  value: number | null;
  /** Requests behind the value (the min_requests guard); null when the source has no such notion. */
  requests: number | null;
  /** Extra fields for the payload's `alert` object (e.g. the worst end user). */
  detail?: Record<string, unknown>;
}

interface SourceDeps {
  store: AnalyticsStore;
  db: Knex;
}

export interface MeasureSource {
  /** One line for docs and the OpenAPI description: what the value is. */
  doc: string;
  /** Whether `group_by` is allowed. */
  groupable: boolean;
  /** Whether `min_requests` applies (not to request_count: zero requests is its value). */
  guarded: boolean;
  /** The filter fields this type takes; absent: the request filter language (and none of the other types' fields). */
  filterKeys?: string[];
  /** The observation of a group that had no rows at all in the window. */
  empty: (group: string) => Observation;
  observe(
    deps: SourceDeps,
    rule: RuleScope,
    window: { from: string; to: string },
  ): Promise<{ source: string; observations: Observation[] }>;
}
