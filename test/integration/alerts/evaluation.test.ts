import { startTestApp, type TestApp } from '../../helpers/app';
import type { SeededTenant } from '../../helpers/auth';
import { recordEvaluation, type EvalDeps } from '../../../src/alerts/evaluate';
import { createRule, MIN, newProject, ruleRecords, seed, seedEvaluation, T0 } from './helpers';

/**
 * Every alert type triggering and resolving on seeded request rows, through the evaluator the
 * schedule's activity runs, with the clock passed in (the window and the cooldown are about time,
 * not timers). The api role only: alert.triggered rows stay in the outbox, where they are counted.
 */
describe('alert evaluation', () => {
  let app: TestApp;
  let t: SeededTenant;
  let deps: EvalDeps;
  const at = (ms: number) => new Date(ms);
  const db = () => app.runtime.ctx.db;
  const { events, states, outbox } = ruleRecords(db);

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    ({ t, deps } = await seedEvaluation(app));
  });
  afterAll(() => app?.stop());

  const iso = (ms: number) => new Date(ms).toISOString();
  const anomaly = (p: string, measure: string, dimension: string, value: string) =>
    db()('anomalies').insert({
      org_id: t.orgId,
      project_id: p,
      measure,
      dimension,
      dimension_value: value,
      direction: 'up',
      expected_low: 0,
      expected_median: 1,
      expected_high: 2,
      observed: 9,
      score: 9,
      baseline: JSON.stringify({ points: 7, seasonal: false, from: iso(T0 - 86_400_000), to: iso(T0) }),
      window_start: iso(T0 - 60 * MIN),
      window_end: iso(T0 - 5 * MIN),
      first_seen: iso(T0 - 5 * MIN),
      last_seen: iso(T0 - 5 * MIN),
    });
  const finding = (p: string, severity: string, kind = 'secret') =>
    db()('security_findings').insert({
      org_id: t.orgId,
      project_id: p,
      kind,
      category: 'github',
      severity,
      detector: 'test',
      fingerprint: `${Math.random()}`,
      excerpt: 'ghp_****',
      source: 'request',
      field: 'request_body',
      direction: 'in',
      first_seen: iso(T0 - 5 * MIN),
      last_seen: iso(T0 - 5 * MIN),
      created_at: iso(T0 - 5 * MIN),
    });
  const cases: {
    type: string;
    threshold: number;
    operator?: string;
    filter?: object;
    rows: (p: string) => Promise<void>;
  }[] = [
    { type: 'cost', threshold: 0.05, rows: (p) => seed(app, t, p, 10, T0 - 5 * MIN, { cost_usd: 0.01 }) },
    {
      type: 'error_rate',
      threshold: 0.5,
      rows: async (p) => (
        await seed(app, t, p, 3, T0 - 5 * MIN, { status_code: 500 }),
        seed(app, t, p, 1, T0 - 5 * MIN)
      ),
    },
    { type: 'latency_p95', threshold: 1000, rows: (p) => seed(app, t, p, 5, T0 - 5 * MIN, { latency_ms: 2000 }) },
    { type: 'latency_p99', threshold: 1000, rows: (p) => seed(app, t, p, 5, T0 - 5 * MIN, { latency_ms: 3000 }) },
    { type: 'request_count', threshold: 5, rows: (p) => seed(app, t, p, 6, T0 - 5 * MIN) },
    { type: 'token_count', threshold: 100, rows: (p) => seed(app, t, p, 10, T0 - 5 * MIN, { total_tokens: 15 }) },
    {
      type: 'cost_per_user',
      threshold: 0.05,
      rows: async (p) => (
        await seed(app, t, p, 10, T0 - 5 * MIN, { cost_usd: 0.01, user_id: 'big-spender' }),
        seed(app, t, p, 10, T0 - 5 * MIN, { cost_usd: 0.001, user_id: 'small' })
      ),
    },
    // One anomaly of the measure asked for (and one of another measure, not counted).
    {
      type: 'anomaly',
      threshold: 0,
      filter: { measure: 'cost' },
      rows: async (p) => {
        await anomaly(p, 'cost', 'model', 'gpt-4o');
        await anomaly(p, 'requests', 'project', '');
      },
    },
    // Two findings at or above high (and a low one, not counted).
    {
      type: 'security_finding',
      threshold: 1,
      filter: { severity: 'high' },
      rows: async (p) => {
        await finding(p, 'critical');
        await finding(p, 'high');
        await finding(p, 'low');
      },
    },
  ];

  it.each(cases)(
    '$type triggers on its window, notifies once, and resolves when the window has moved past the rows',
    async ({ type, threshold, filter, rows }) => {
      const p = await newProject(app, t);
      await rows(p);
      const rule = await createRule(app, t, {
        type,
        threshold,
        filter,
        project_id: p,
        window_minutes: 15,
        cooldown_minutes: 0,
      });
      const first = await recordEvaluation(deps, rule.id, at(T0));
      expect(first).toMatchObject({ events: 1, notified: 1 });
      // still breaching a minute later: no second notification (cooldown 0: no reminders)
      expect(await recordEvaluation(deps, rule.id, at(T0 + MIN))).toMatchObject({ events: 0, notified: 0 });
      // 15 minutes on, the rows left the window
      // sums are 0 without calls; ratios and percentiles have no value: no data, resolved by the default policy (ok)
      const noValue = ['error_rate', 'latency_p95', 'latency_p99', 'cost_per_user'].includes(type);
      expect(await recordEvaluation(deps, rule.id, at(T0 + 15 * MIN))).toMatchObject({
        events: noValue ? 2 : 1,
        notified: 0,
      });
      const ev = await events(rule.id);
      expect(ev.map((e) => e.kind)).toEqual(noValue ? ['triggered', 'no_data', 'resolved'] : ['triggered', 'resolved']);
      expect(ev[0].value).toBeGreaterThan(threshold);
      expect((await states(rule.id))[0]).toMatchObject({ state: 'resolved' });
      const sent = await outbox(rule.id);
      expect(sent).toHaveLength(1);
      expect(sent[0].payload.alert).toMatchObject({
        id: rule.id,
        name: 'rule',
        type,
        threshold,
        window_minutes: 15,
        current_value: ev[0].value,
      });
      if (type === 'cost_per_user')
        expect(sent[0].payload.alert).toMatchObject({ user_id: 'big-spender', current_value: 0.1 });
      if (type === 'anomaly') expect(ev[0].value).toBe(1);
      if (type === 'security_finding') expect(ev[0].value).toBe(2);
    },
  );

  it('error_rate compares the exact ratio: 2 errors in 6 calls breach 0.333333 and report 2/6', async () => {
    const p = await newProject(app, t);
    await seed(app, t, p, 2, T0 - 5 * MIN, { status_code: 500 });
    await seed(app, t, p, 4, T0 - 5 * MIN);
    const rule = await createRule(app, t, {
      type: 'error_rate',
      threshold: 0.333333,
      project_id: p,
      window_minutes: 15,
    });
    expect(await recordEvaluation(deps, rule.id, at(T0))).toMatchObject({ events: 1 });
    expect((await events(rule.id)).map((e) => [e.kind, e.value])).toEqual([['triggered', 2 / 6]]);
  });

  it('request_count lt 1: a project with no rows at all is 0 requests (stopped traffic), not no data', async () => {
    const p = await newProject(app, t);
    const rule = await createRule(app, t, {
      type: 'request_count',
      operator: 'lt',
      threshold: 1,
      project_id: p,
      window_minutes: 15,
      no_data: 'ok',
    });
    expect(await recordEvaluation(deps, rule.id, at(T0))).toMatchObject({ notified: 1 });
    expect((await events(rule.id)).map((e) => [e.kind, e.value])).toEqual([['triggered', 0]]);
    // traffic is back: resolved
    await seed(app, t, p, 1, T0 + 2 * MIN);
    await recordEvaluation(deps, rule.id, at(T0 + 3 * MIN));
    expect((await states(rule.id))[0]).toMatchObject({ state: 'resolved', last_value: 1 });
  });

  it('group_by: one state per group; a group whose traffic stopped evaluates to 0 and triggers', async () => {
    const p = await newProject(app, t);
    await seed(app, t, p, 3, T0 - 20 * MIN, { model: 'model-a' });
    await seed(app, t, p, 3, T0 - 20 * MIN, { model: 'model-b' });
    await seed(app, t, p, 3, T0 - 5 * MIN, { model: 'model-b' });
    const rule = await createRule(app, t, {
      type: 'request_count',
      operator: 'lt',
      threshold: 1,
      project_id: p,
      window_minutes: 15,
      group_by: 'model',
    });
    // 10 minutes earlier both models had calls in their window
    await recordEvaluation(deps, rule.id, at(T0 - 10 * MIN));
    expect((await states(rule.id)).map((s) => [s.group_key, s.state])).toEqual([
      ['model-a', 'ok'],
      ['model-b', 'ok'],
    ]);
    await recordEvaluation(deps, rule.id, at(T0));
    expect((await states(rule.id)).map((s) => [s.group_key, s.state, s.last_value])).toEqual([
      ['model-a', 'triggered', 0],
      ['model-b', 'ok', 3],
    ]);
    const sent = await outbox(rule.id);
    expect(sent.map((s) => s.payload.alert)).toEqual([
      expect.objectContaining({ group_by: 'model', group: 'model-a', current_value: 0 }),
    ]);
  });

  it('group_by: a group gone quiet is resolved, then forgotten once at rest (states stay bounded)', async () => {
    const p = await newProject(app, t);
    await seed(app, t, p, 3, T0 - 2 * MIN, { model: 'pricey', cost_usd: 1 });
    await seed(app, t, p, 3, T0 - 2 * MIN, { model: 'cheap', cost_usd: 0.01 });
    await seed(app, t, p, 1, T0 + 14 * MIN, { model: 'cheap', cost_usd: 0.01 });
    const rule = await createRule(app, t, { type: 'cost', threshold: 2, project_id: p, group_by: 'model' });
    await recordEvaluation(deps, rule.id, at(T0));
    expect((await states(rule.id)).map((s) => [s.group_key, s.state])).toEqual([
      ['cheap', 'ok'],
      ['pricey', 'triggered'],
    ]);
    await recordEvaluation(deps, rule.id, at(T0 + 15 * MIN)); // both batches of T0 − 2 left the window
    expect((await states(rule.id)).map((s) => [s.group_key, s.state, s.last_value])).toEqual([
      ['cheap', 'ok', 0.01],
      ['pricey', 'resolved', 0],
    ]);
    await recordEvaluation(deps, rule.id, at(T0 + 16 * MIN));
    expect((await states(rule.id)).map((s) => s.group_key)).toEqual(['cheap']);
    expect((await events(rule.id)).map((e) => [e.kind, e.group_key])).toEqual([
      ['triggered', 'pricey'],
      ['resolved', 'pricey'],
    ]);
  });

  it(
    'cooldown: while still triggered, notifies again only ' + 'once the cooldown has passed; again after a resolve',
    async () => {
      const p = await newProject(app, t);
      await seed(app, t, p, 5, T0 - 2 * MIN, { cost_usd: 1 });
      await seed(app, t, p, 5, T0 + 8 * MIN, { cost_usd: 1 });
      const rule = await createRule(app, t, {
        type: 'cost',
        threshold: 2,
        project_id: p,
        window_minutes: 15,
        cooldown_minutes: 10,
      });
      const notified = async (minute: number) =>
        (await recordEvaluation(deps, rule.id, at(T0 + minute * MIN))).notified;
      expect(await notified(0)).toBe(1);
      expect(await notified(5)).toBe(0);
      expect(await notified(9)).toBe(0);
      expect(await notified(10)).toBe(1); // cooldown passed, still triggered
      expect(await notified(11)).toBe(0);
      expect(await notified(30)).toBe(0); // resolved: both batches left the window
      await seed(app, t, p, 5, T0 + 30 * MIN, { cost_usd: 1 });
      expect(await notified(31)).toBe(1); // triggered again after the resolve
      expect((await events(rule.id)).map((e) => [e.kind, e.notified])).toEqual([
        ['triggered', true],
        ['triggered', true],
        ['resolved', false],
        ['triggered', true],
      ]);
      expect(await outbox(rule.id)).toHaveLength(3);
    },
  );
});
