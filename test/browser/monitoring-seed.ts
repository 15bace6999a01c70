import type { TestApp } from '../helpers/app';
import { api, type SeededTenant } from '../helpers/auth';
import { seedFinishedDeliveries } from '../integration/webhooks/fixtures';

/** The ids of what monitoring.test.ts acts on. */
export interface MonitoringIds {
  anomaly: string;
  recommendation: string;
  finding: string;
  alert: string;
  webhook: string;
  delivery: string;
}

/**
 * What monitoring.test.ts acts on, written for `t`'s project: a cost anomaly with its baseline, a
 * recommendation with its evidence, a security finding, an alert rule, a webhook to `receiverUrl`
 * and six of its deliveries that a receiver outage left dead-lettered an hour ago.
 */
export async function seedMonitoring(app: TestApp, t: SeededTenant, receiverUrl: string): Promise<MonitoringIds> {
  const ids: MonitoringIds = { anomaly: '', recommendation: '', finding: '', alert: '', webhook: '', delivery: '' };
  const iso = (ms: number) => new Date(ms).toISOString();
  const NOW = Date.now();
  const H = 3_600_000;
  const as = { token: t.admin.token, orgId: t.orgId };
  const db = app.database.db;
  const base = { org_id: t.orgId, project_id: t.projectId };
  [{ id: ids.anomaly }] = await db('anomalies')
    .insert({
      ...base,
      measure: 'cost',
      dimension: 'model',
      dimension_value: 'gpt-4o',
      direction: 'up',
      expected_low: 0.4,
      expected_median: 0.8,
      expected_high: 1.2,
      observed: 3.7,
      score: 12.5,
      baseline: JSON.stringify({ points: 168, seasonal: true, from: iso(NOW - 8 * 24 * H), to: iso(NOW - 2 * H) }),
      window_start: iso(NOW - 2 * H),
      window_end: iso(NOW - H),
      first_seen: iso(NOW - H),
      last_seen: iso(NOW - H),
    })
    .returning('id');
  [{ id: ids.recommendation }] = await db('recommendations')
    .insert({
      ...base,
      kind: 'cheaper_model',
      subject: 'gpt-4o',
      title: 'Use gpt-4o-mini for short prompts',
      detail: '80 of 100 gpt-4o calls send under 1,500 tokens; gpt-4o-mini answers those for a fifteenth of the price.',
      evidence: JSON.stringify({
        model: 'gpt-4o',
        cheaper_model: 'gpt-4o-mini',
        calls: 80,
        share: 0.8,
        current_cost_usd: 12.4,
        projected_cost_usd: 0.83,
      }),
      monthly_saving_usd: 11.57,
      computed_at: iso(NOW),
    })
    .returning('id');
  [{ id: ids.finding }] = await db('security_findings')
    .insert({
      ...base,
      kind: 'secret',
      category: 'github_token',
      severity: 'high',
      detector: 'regex',
      fingerprint: `fp-${NOW}`,
      excerpt: 'my token is ghp_****************************abcd',
      source: 'request',
      field: 'request_body',
      direction: 'in',
      first_seen: iso(NOW - 3 * H),
      last_seen: iso(NOW - H),
      created_at: iso(NOW - 3 * H),
      occurrences: 4,
    })
    .returning('id');
  const alert = await api(app, 'POST', '/api/v1/alerts', {
    ...as,
    body: { name: 'cost watch', type: 'cost', operator: 'gt', threshold: 5, window_minutes: 15 },
  });
  ids.alert = alert.body.data.id;
  const hook = await api(app, 'POST', '/api/v1/webhooks', {
    ...as,
    body: { name: 'ops', url: receiverUrl, events: ['request.created'] },
  });
  ids.webhook = hook.body.data.id;
  // Deliveries a receiver outage left dead-lettered an hour ago.
  const dead = await seedFinishedDeliveries(db, ids.webhook, t.orgId, 6, { createdAt: new Date(NOW - H) });
  ids.delivery = dead[0].id;
  return ids;
}
