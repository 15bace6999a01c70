import { levelOf, transition, type GroupState, type RuleLimits } from '../../../src/alerts/state';

/** The per-group state machine without a database: levels, transitions, notifications. */
const rule = (over: Partial<RuleLimits> = {}): RuleLimits => ({
  operator: 'gt',
  threshold: 10,
  warning_threshold: 5,
  min_requests: 0,
  no_data: 'ok',
  cooldown_minutes: 0,
  ...over,
});
const at = (min: number) => new Date(Date.UTC(2026, 8, 1, 12, min));
const obs = (value: number | null, requests = 10) => ({ group: '', value, requests });

describe('alert levels', () => {
  it.each([
    ['gt', 4, 'ok'],
    ['gt', 10, 'warning'],
    ['gt', 10.5, 'alert'],
    ['gte', 10, 'alert'],
    ['gt', 6, 'warning'],
  ] as const)('%s with value %d → %s', (operator, value, level) => {
    expect(levelOf(rule({ operator }), obs(value), true)).toBe(level);
  });
  it('lt / lte go downward (warning above the threshold)', () => {
    const r = rule({ operator: 'lt', threshold: 1, warning_threshold: 3 });
    expect([0, 2, 5].map((v) => levelOf(r, obs(v), false))).toEqual(['alert', 'warning', 'ok']);
    expect(levelOf({ ...r, operator: 'lte' }, obs(1), false)).toBe('alert');
  });
  it('no value, or fewer calls than min_requests on a guarded type, is no data', () => {
    expect(levelOf(rule(), obs(null), true)).toBe('no_data');
    expect(levelOf(rule({ min_requests: 20 }), obs(50, 10), true)).toBe('no_data');
    expect(levelOf(rule({ min_requests: 20 }), obs(50, 10), false)).toBe('alert');
  });
});

describe('alert transitions', () => {
  const run = (r: RuleLimits, steps: [number, ReturnType<typeof levelOf>][]) => {
    let s: GroupState | undefined;
    return steps.map(([min, level]) => {
      const t = transition(r, s, level, 1, at(min));
      s = t.next;
      return [t.next.state, t.events.join(','), t.notify];
    });
  };
  it('ok → triggered (notify once) → resolved → triggered (notify again)', () => {
    expect(
      run(rule(), [
        [0, 'ok'],
        [1, 'alert'],
        [2, 'alert'],
        [3, 'ok'],
        [4, 'alert'],
      ]),
    ).toEqual([
      ['ok', '', false],
      ['triggered', 'triggered', true],
      ['triggered', '', false],
      ['resolved', 'resolved', false],
      ['triggered', 'triggered', true],
    ]);
  });
  it('cooldown: reminders while triggered, not before the cooldown', () => {
    expect(
      run(rule({ cooldown_minutes: 10 }), [
        [0, 'alert'],
        [9, 'alert'],
        [10, 'alert'],
        [15, 'alert'],
        [20, 'alert'],
      ]).map((x) => x[2]),
    ).toEqual([true, false, true, false, true]);
  });
  it('warning: entered, left by a breach, and a triggered group dropping to warning resolves', () => {
    expect(
      run(rule(), [
        [0, 'warning'],
        [1, 'alert'],
        [2, 'warning'],
        [3, 'ok'],
      ]),
    ).toEqual([
      ['warning', 'warning', false],
      ['triggered', 'triggered', true],
      ['warning', 'resolved', false],
      ['ok', 'resolved', false],
    ]);
  });
  it.each([
    ['ok', 'resolved', 'no_data,resolved'],
    ['keep', 'triggered', 'no_data'],
    ['alert', 'triggered', 'no_data'],
  ] as const)('no data with policy %s on a triggered group → %s', (policy, state, events) => {
    const r = rule({ no_data: policy });
    const t1 = transition(r, undefined, 'alert', 20, at(0));
    const t2 = transition(r, t1.next, 'no_data', null, at(1));
    expect([t2.next.state, t2.events.join(','), t2.notify]).toEqual([state, events, false]);
    // still no data: nothing new
    expect(transition(r, t2.next, 'no_data', null, at(2)).events).toEqual([]);
  });
});
