import type { Measures } from '../../analytics/measures';
import type { OrderBy } from '../../analytics/plan';
import type { MeasureSource, Observation } from './types';

/** Groups evaluated per rule at most (the first ones by the type's ranking measure). */
const MAX_GROUPS = 100;

/**
 * Alert types measured on the request log through the analytics store: one window read, in total
 * or per group. `pick` turns a window's measures into the value (null: no value).
 */
function requestSource(o: {
  doc: string;
  pick: (m: Measures) => number | null;
  orderBy: OrderBy;
  guarded?: boolean;
}): MeasureSource {
  const zero = {
    requests: 0,
    cost_usd: 0,
    total_tokens: 0,
    errors: 0,
    error_rate: 0,
    latency_p95_ms: null,
    latency_p99_ms: null,
  } as Measures;
  const obs = (group: string, m: Measures): Observation => ({ group, value: o.pick(m), requests: m.requests });
  return {
    doc: o.doc,
    groupable: true,
    guarded: o.guarded ?? true,
    empty: (group) => obs(group, zero),
    async observe({ store }, rule, w) {
      const a = await store.windowMeasures({
        projectIds: rule.projectIds,
        filter: rule.filter,
        from: w.from,
        to: w.to,
        groupBy: rule.groupBy,
        orderBy: o.orderBy,
        limit: MAX_GROUPS,
      });
      const observations = a.groups ? a.groups.map((g) => obs(g.key, g.measures)) : [obs('', a.totals)];
      return { source: a.source, observations };
    },
  };
}

export const requestSources = {
  cost: requestSource({
    doc: 'priced cost in USD of the calls in the window (0 without calls)',
    pick: (m) => m.cost_usd,
    orderBy: 'cost_usd',
  }),
  error_rate: requestSource({
    doc:
      'errors (status ≥ 400) / calls in the window, ' +
      'the exact ratio (not the rounded display figure); no value without calls',
    pick: (m) => (m.requests ? m.errors / m.requests : null),
    orderBy: 'errors',
  }),
  latency_p95: requestSource({
    doc: '95th percentile latency in ms; no value without calls',
    pick: (m) => m.latency_p95_ms,
    orderBy: 'requests',
  }),
  latency_p99: requestSource({
    doc: '99th percentile latency in ms; no value without calls',
    pick: (m) => m.latency_p99_ms,
    orderBy: 'requests',
  }),
  request_count: requestSource({
    doc: 'calls in the window; 0 (never no-data) when there are none',
    pick: (m) => m.requests,
    orderBy: 'requests',
    guarded: false,
  }),
  token_count: requestSource({
    doc: 'total tokens of the calls in the window (0 without calls)',
    pick: (m) => m.total_tokens,
    orderBy: 'total_tokens',
  }),
} satisfies Record<string, MeasureSource>;

/**
 * cost_per_user: the cost of the worst end user of the window (calls with an x-service-user-id);
 * one value per rule, the user named in the payload (`alert.user_id`). No group_by: per-user state
 * is `cost` with `group_by: user`.
 */
export const costPerUser: MeasureSource = {
  doc: 'cost in USD of the costliest end user in the window; no value without calls carrying a user id',
  groupable: false,
  guarded: true,
  empty: (group) => ({ group, value: null, requests: 0 }),
  async observe({ store }, rule, w) {
    const a = await store.windowMeasures({
      projectIds: rule.projectIds,
      filter: rule.filter,
      from: w.from,
      to: w.to,
      groupBy: { kind: 'dim', dim: 'user' },
      orderBy: 'cost_usd',
      limit: 1,
    });
    const worst = a.groups?.[0];
    return {
      source: a.source,
      observations: [
        {
          group: '',
          value: worst ? worst.measures.cost_usd : null,
          requests: a.totals.requests,
          detail: worst ? { user_id: worst.key } : undefined,
        },
      ],
    };
  },
};
