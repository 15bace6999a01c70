import type { Observation } from './sources';

/**
 * The per-(rule, group) state machine (docs/alerts.md), pure so it is tested without a clock:
 *
 *   ok/resolved ──breach──► triggered ──no breach──► resolved
 *        └──warning──► warning ──breach──► triggered
 *
 * Entering `triggered` notifies (alert.triggered). Staying triggered notifies again only once
 * `cooldown_minutes` (> 0) have passed since the last notification; a group that resolved and
 * breaches again notifies again.
 */
type Operator = 'gt' | 'gte' | 'lt' | 'lte';
type StateName = 'ok' | 'warning' | 'triggered' | 'resolved';
type EventKind = 'triggered' | 'warning' | 'resolved' | 'no_data';
export type Level = 'ok' | 'warning' | 'alert' | 'no_data';

export interface RuleLimits {
  operator: Operator;
  threshold: number;
  warning_threshold: number | null;
  min_requests: number;
  no_data: 'ok' | 'alert' | 'keep';
  cooldown_minutes: number;
}

export interface GroupState {
  state: StateName;
  since: Date;
  no_data: boolean;
  last_value: number | null;
  last_notified_at: Date | null;
}

const breaches = (op: Operator, value: number, limit: number): boolean =>
  op === 'gt' ? value > limit : op === 'gte' ? value >= limit : op === 'lt' ? value < limit : value <= limit;

/** How an observation stands against the rule; `guarded` sources need min_requests calls for a value. */
export function levelOf(rule: RuleLimits, o: Observation, guarded: boolean): Level {
  if (o.value === null) return 'no_data';
  if (guarded && rule.min_requests > 0 && (o.requests ?? 0) < rule.min_requests) return 'no_data';
  if (breaches(rule.operator, o.value, rule.threshold)) return 'alert';
  if (rule.warning_threshold !== null && breaches(rule.operator, o.value, rule.warning_threshold)) return 'warning';
  return 'ok';
}

export interface Transition {
  next: GroupState;
  /** History rows to write (in order). */
  events: EventKind[];
  /** Emit alert.triggered with this evaluation. */
  notify: boolean;
  changed: boolean;
}

export function transition(
  rule: RuleLimits,
  prev: GroupState | undefined,
  level: Level,
  value: number | null,
  now: Date,
): Transition {
  const cur: GroupState = prev ?? { state: 'ok', since: now, no_data: false, last_value: null, last_notified_at: null };
  const events: EventKind[] = [];
  const noData = level === 'no_data';
  if (noData && !cur.no_data) events.push('no_data');
  // no_data resolves to a level by the rule's policy; `keep` leaves the state as it is.
  const eff: Exclude<Level, 'no_data'> | 'keep' = noData
    ? rule.no_data === 'alert'
      ? 'alert'
      : rule.no_data === 'ok'
        ? 'ok'
        : 'keep'
    : level;
  let state = cur.state;
  let notify = false;
  if (eff === 'alert') {
    if (cur.state !== 'triggered') {
      state = 'triggered';
      events.push('triggered');
      notify = true;
    } else if (
      rule.cooldown_minutes > 0 &&
      cur.last_notified_at &&
      now.getTime() - cur.last_notified_at.getTime() >= rule.cooldown_minutes * 60_000
    ) {
      events.push('triggered');
      notify = true;
    }
  } else if (eff === 'warning') {
    if (cur.state === 'triggered') events.push('resolved');
    else if (cur.state !== 'warning') events.push('warning');
    state = 'warning';
  } else if (eff === 'ok') {
    if (cur.state === 'triggered') {
      state = 'resolved';
      events.push('resolved');
    } else if (cur.state === 'warning') {
      state = 'ok';
      events.push('resolved');
    }
  }
  const next: GroupState = {
    state,
    since: state === cur.state && prev ? cur.since : now,
    no_data: noData,
    last_value: value,
    last_notified_at: notify ? now : cur.last_notified_at,
  };
  return { next, events, notify, changed: !prev || state !== cur.state || noData !== cur.no_data };
}
