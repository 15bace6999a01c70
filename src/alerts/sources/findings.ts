import { SEVERITIES, type Severity } from '../../security/detectors/types';
import { countNewFindings } from '../../security/service';
import type { MeasureSource } from './types';

/**
 * Alert types counting new rows of another feature in the window: `anomaly` (anomalies the
 * detector opened) and `security_finding` (findings the scanner recorded at or above a severity).
 * A count is never "no data": a quiet window is 0. Their filters take only their own fields.
 */
export const anomalySource: MeasureSource = {
  doc: 'anomalies first detected in the window (filter: measure, model, user_id); 0 when none',
  groupable: false,
  guarded: false,
  filterKeys: ['measure', 'model', 'user_id'],
  empty: (group) => ({ group, value: 0, requests: null }),
  async observe({ db }, rule, w) {
    const f = rule.alertFilter;
    const q = db('anomalies')
      .whereIn('project_id', rule.projectIds)
      .andWhere('first_seen', '>=', w.from)
      .andWhere('first_seen', '<', w.to);
    if (f.measure) q.andWhere('measure', f.measure);
    if (f.model) q.andWhere({ dimension: 'model', dimension_value: f.model });
    if (f.user_id) q.andWhere({ dimension: 'user', dimension_value: f.user_id });
    const [row] = await q.count('* as n');
    return {
      source: 'anomalies',
      observations: [{ group: '', value: Number((row as { n: unknown }).n), requests: null }],
    };
  },
};

export const securityFindingSource: MeasureSource = {
  doc:
    'security findings first recorded in the window at or above filter.severity (default: any), ' +
    'optionally of one filter.finding_kind; 0 when none',
  groupable: false,
  guarded: false,
  filterKeys: ['severity', 'finding_kind'],
  empty: (group) => ({ group, value: 0, requests: null }),
  async observe({ db }, rule, w) {
    const f = rule.alertFilter;
    const n = await countNewFindings(
      db,
      rule.projectIds,
      w.from,
      w.to,
      (f.severity as Severity | undefined) ?? SEVERITIES[0],
      f.finding_kind,
    );
    return { source: 'security_findings', observations: [{ group: '', value: n, requests: null }] };
  },
};
