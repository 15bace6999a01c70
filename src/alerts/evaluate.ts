import type { Knex } from 'knex';
import type { AnalyticsStore } from '../analytics/store';
import { recordSystemAudit } from '../audit/audit';
import { emitEvents } from '../events/outbox';
import { requestFilterOf, groupByOf } from './filter';
import * as q from './queries';
import type { AlertFilter, Evaluation } from './schemas';
import { measureSources, type AlertType, type Observation } from './sources';
import { levelOf, transition, type Level } from './state';

/**
 * Evaluation of one rule: the window [now − window, now) with `now` floored to the minute (so a
 * window of whole hours ending on the hour reads the rollups), one observation per group, each
 * group's level against the thresholds. `recordEvaluation` then applies the state machine and, in
 * one transaction, writes the states, the history, the audit row and alert.triggered to the outbox.
 */
export interface EvalDeps {
  db: Knex;
  store: AnalyticsStore;
}

const MIN = 60_000;
const LEVEL_RANK: Record<Level, number> = { alert: 3, warning: 2, no_data: 1, ok: 0 };

function windowOf(windowMinutes: number, now: Date) {
  const to = Math.floor(now.getTime() / MIN) * MIN;
  return { from: new Date(to - windowMinutes * MIN).toISOString(), to: new Date(to).toISOString() };
}

interface Observed {
  window: { from: string; to: string };
  source: string;
  /** `absent`: a group known from earlier evaluations with no rows in this window. */
  rows: { o: Observation; level: Level; absent: boolean }[];
}

async function observe(deps: EvalDeps, rule: q.RuleRow, states: q.StateRow[], now: Date): Promise<Observed> {
  const src = measureSources[rule.type as AlertType];
  if (!src) throw new Error(`alert rule ${rule.id}: unknown type ${rule.type}`);
  const window = windowOf(rule.window_minutes, now);
  const projectIds = rule.project_id ? [rule.project_id] : await q.projectIdsOf(deps.db, rule.org_id);
  const scope = {
    id: rule.id,
    orgId: rule.org_id,
    projectIds,
    filter: requestFilterOf(rule.filter as AlertFilter),
    alertFilter: rule.filter as AlertFilter,
    groupBy: groupByOf(rule.group_by),
  };
  const { source, observations } = await src.observe(deps, scope, window);
  // Groups seen before but absent now had no rows at all: they are evaluated as empty (0 calls).
  const seen = new Set(observations.map((o) => o.group));
  const absent = states.filter((s) => !seen.has(s.group_key)).map((s) => src.empty(s.group_key));
  if (!rule.group_by && observations.length === 0 && absent.length === 0) absent.push(src.empty(''));
  const rows = [...observations.map((o) => ({ o, absent: false })), ...absent.map((o) => ({ o, absent: true }))].map(
    (r) => ({ ...r, level: levelOf(rule, r.o, src.guarded) }),
  );
  // Worst first: by level, then by how far past the threshold in the operator's direction.
  const sign = rule.operator === 'lt' || rule.operator === 'lte' ? -1 : 1;
  rows.sort(
    (a, b) =>
      LEVEL_RANK[b.level] - LEVEL_RANK[a.level] ||
      sign * ((b.o.value ?? 0) - (a.o.value ?? 0)) ||
      a.o.group.localeCompare(b.o.group),
  );
  return { window, source, rows };
}

/** POST /alerts/:id/evaluate: the values now, per group, without recording or notifying anything. */
export async function previewEvaluation(deps: EvalDeps, rule: q.RuleRow, now = new Date()): Promise<Evaluation> {
  const states = await q.stateRows(deps.db, rule.id);
  const { window, source, rows } = await observe(deps, rule, states, now);
  const stateOf = new Map(states.map((s) => [s.group_key, s.state]));
  return {
    evaluated_at: now.toISOString(),
    window,
    source,
    groups: rows.map(({ o, level }) => ({
      group: o.group,
      current_value: o.value,
      requests: o.requests,
      level,
      state: stateOf.get(o.group) ?? 'ok',
      ...(o.detail ? { detail: o.detail } : {}),
    })),
  };
}

export interface RecordResult {
  ruleId: string;
  skipped?: string;
  groups: number;
  events: number;
  notified: number;
}

/** The scheduled evaluation (activity): observe, then apply the state machine and record it all in one transaction. */
export async function recordEvaluation(deps: EvalDeps, ruleId: string, now = new Date()): Promise<RecordResult> {
  const rule = await q.findRuleRow(deps.db, null, ruleId);
  if (!rule) return { ruleId, skipped: 'rule not found', groups: 0, events: 0, notified: 0 };
  if (!rule.is_active) return { ruleId, skipped: 'rule inactive', groups: 0, events: 0, notified: 0 };
  const observed = await observe(deps, rule, await q.stateRows(deps.db, rule.id), now);
  return deps.db.transaction(async (trx) => {
    // The rule row lock serialises evaluations of one rule (a manual run beside the schedule's).
    const locked = await q.findRuleRow(trx, null, ruleId, { forUpdate: true });
    if (!locked || locked.version !== rule.version || !locked.is_active)
      return { ruleId, skipped: 'rule changed during evaluation', groups: 0, events: 0, notified: 0 };
    const prev = new Map((await q.stateRows(trx, ruleId)).map((s) => [s.group_key, s]));
    const states: q.StateRow[] = [];
    const forget: string[] = [];
    const events: q.EventInsert[] = [];
    const notifications: { o: Observation; index: number }[] = [];
    for (const { o, level, absent } of observed.rows) {
      const t = transition(rule, prev.get(o.group), level, o.value, now);
      // A group gone quiet and at rest is forgotten (group_by on users would otherwise grow forever);
      // one whose silence breaches (lt rules, no_data alert) is kept, so stopped traffic stays visible.
      if (rule.group_by && absent && !t.events.length && (t.next.state === 'ok' || t.next.state === 'resolved'))
        forget.push(o.group);
      else states.push({ rule_id: ruleId, group_key: o.group, ...t.next, last_evaluated_at: now });
      for (const kind of t.events) {
        const notified = kind === 'triggered' && t.notify;
        if (notified) notifications.push({ o, index: events.length });
        const threshold = kind === 'warning' ? rule.warning_threshold : rule.threshold;
        events.push({
          rule_id: ruleId,
          org_id: rule.org_id,
          kind,
          group_key: o.group,
          value: o.value,
          threshold,
          requests: o.requests,
          notified,
          at: now,
        });
      }
    }
    await q.upsertStates(trx, states);
    if (forget.length) await q.deleteStates(trx, ruleId, forget);
    const ids = await q.insertEvents(trx, events);
    if (notifications.length) {
      await emitEvents(
        trx,
        notifications.map(({ o, index }) => ({
          orgId: rule.org_id,
          kind: 'alert.triggered' as const,
          object: alertPayload(rule, o, ids[index]!.id, now),
        })),
      );
      for (const { o, index } of notifications) {
        await recordSystemAudit(trx, {
          orgId: rule.org_id,
          label: 'alert-evaluator',
          action: 'alert.triggered',
          resourceType: 'alert',
          resourceId: rule.id,
          after: {
            event_id: ids[index]!.id,
            group: o.group,
            current_value: o.value,
            threshold: rule.threshold,
            operator: rule.operator,
          },
        });
      }
    }
    return { ruleId, groups: states.length, events: events.length, notified: notifications.length };
  });
}

/**
 * The alert.triggered event object: the spec's `alert` {id, name, type, threshold, current_value,
 * window_minutes} plus documented extras inside it, and `organization`, whose `name` the
 * dispatcher fills in when it builds the delivery (src/webhooks/dispatch/queries.ts).
 */
function alertPayload(rule: q.RuleRow, o: Observation, eventId: string, at: Date) {
  return {
    alert: {
      id: rule.id,
      name: rule.name,
      type: rule.type,
      threshold: rule.threshold,
      current_value: o.value,
      window_minutes: rule.window_minutes,
      operator: rule.operator,
      warning_threshold: rule.warning_threshold,
      project_id: rule.project_id,
      group_by: rule.group_by,
      group: rule.group_by ? o.group : null,
      requests: o.requests,
      event_id: eventId,
      triggered_at: at.toISOString(),
      ...o.detail,
    },
    organization: {},
  };
}
