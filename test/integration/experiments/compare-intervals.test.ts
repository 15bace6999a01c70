import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

interface ScoreAgg {
  name: string;
  mean: number;
  ci_low: number | null;
  ci_high: number | null;
  n: number;
  interval: string;
}

/**
 * The comparison's 95 % intervals, computed by hand below: Student's t clamped to a 0–1 score config,
 * unbounded without one, null for one item; Wilson's for boolean scores (from one item on).
 * Two external experiments over a 3-item dataset, their scores posted through /api/v1/scores.
 *
 * t(0.975, 2) has a closed form for 2 degrees of freedom: (2p − 1)/√(2p(1 − p)) at p = 0.975,
 * 0.95/√0.04875 = 0.95/0.220794 = 4.302653. Wilson: z = z(0.975) = 1.959964, z² = 3.841459,
 * (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n).
 */
describe('experiments compare: intervals', () => {
  let app: TestApp;
  let t: SeededTenant;
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('t within the config, unbounded without one, null for 1 item; Wilson for booleans', async () => {
    const dataset = (await api(app, 'POST', '/api/v1/datasets', { ...ed(), body: { name: 'three' } })).body.data
      .id as string;
    const items = ['j0', 'j1', 'j2'].map((id) => ({ id, input: { question: id } }));
    expect((await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, { ...ed(), body: { items } })).status).toBe(
      200,
    );
    const config = await api(app, 'POST', '/api/v1/score-configs', {
      ...ed(),
      body: { project_id: t.projectId, name: 'quality', data_type: 'numeric', min: 0, max: 1 },
    });
    expect(config.status).toBe(201);
    const create = async (name: string) => {
      const r = await api(app, 'POST', '/api/v1/experiments', {
        ...ed(),
        body: { name, dataset_id: dataset, subject: { kind: 'external' } },
      });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    const [runA, runB] = [await create('a'), await create('b')];
    const score = async (experiment: string, item: string, body: Record<string, unknown>) =>
      expect(
        (
          await api(app, 'POST', '/api/v1/scores', {
            ...ed(),
            body: { experiment_id: experiment, experiment_item_id: item, repetition: 0, ...body },
          })
        ).status,
      ).toBe(201);
    const quality = (v: number) => ({ config_id: config.body.data.id, value: v });
    const bool = (v: number) => ({ name: 'correct', data_type: 'boolean', value: v });
    for (const [item, q, len, correct] of [
      ['j0', 0.1, 1, 1],
      ['j1', 0.2, 2, 1],
      ['j2', 0.6, 6, 0],
    ] as const) {
      await score(runA, item, quality(q));
      await score(runA, item, { name: 'len', data_type: 'numeric', value: len });
      await score(runA, item, bool(correct));
    }
    await score(runA, 'j0', { name: 'single', data_type: 'numeric', value: 42 });
    await score(runA, 'j0', { name: 'single_bool', data_type: 'boolean', value: 1 });
    for (const [item, q] of [
      ['j0', 0.9],
      ['j1', 0.95],
      ['j2', 1],
    ] as const) {
      await score(runB, item, quality(q));
      await score(runB, item, bool(1));
    }

    const c = (await api(app, 'GET', `/api/v1/experiments/compare?ids=${runA},${runB}`, ed())).body.data;
    const [a, b] = c.experiments as { aggregate: { scores: ScoreAgg[] }; delta: { scores: unknown[] } | null }[];
    const of = (x: { aggregate: { scores: ScoreAgg[] } }, name: string) =>
      x.aggregate.scores.find((s) => s.name === name)!;
    const close = (s: ScoreAgg, low: number, high: number) => {
      expect(s.ci_low).toBeCloseTo(low, 5);
      expect(s.ci_high).toBeCloseTo(high, 5);
    };

    // quality (config 0–1) in a: 0.1, 0.2, 0.6: mean 0.3, deviations −0.2, −0.1, 0.3, s² = 0.14/2 = 0.07,
    // s/√n = √(0.07/3) = 0.152753; half-width 4.302653·0.152753 = 0.657241: [−0.357241, 0.957241], clamped
    // to the config's min: [0, 0.957241].
    expect(of(a, 'quality')).toMatchObject({ mean: 0.3, n: 3, interval: 'student_t', ci_low: 0 });
    close(of(a, 'quality'), 0, 0.957241);
    // in b: 0.9, 0.95, 1: mean 0.95, s = 0.05, s/√3 = 0.028868, half-width 4.302653·0.028868 = 0.124207:
    // [0.825793, 1.074207], clamped to the config's max: [0.825793, 1].
    expect(of(b, 'quality')).toMatchObject({ mean: 0.95, n: 3, interval: 'student_t', ci_high: 1 });
    close(of(b, 'quality'), 0.825793, 1);
    // len (numeric, no config): 1, 2, 6: mean 3, s² = (4 + 1 + 9)/2 = 7, s/√3 = √(7/3) = 1.527525,
    // half-width 4.302653·1.527525 = 6.572411: [−3.572411, 9.572411], unbounded.
    expect(of(a, 'len')).toMatchObject({ mean: 3, n: 3, interval: 'student_t' });
    close(of(a, 'len'), -3.572411, 9.572411);
    // single (numeric) on 1 item: no t interval.
    expect(of(a, 'single')).toEqual({
      name: 'single',
      mean: 42,
      ci_low: null,
      ci_high: null,
      n: 1,
      interval: 'student_t',
    });
    // correct (boolean) in a: 2 of 3, p = 0.666667, n = 3: centre 0.666667 + 3.841459/6 = 1.306910;
    // z·√(0.222222/3 + 3.841459/36) = 1.959964·√0.180781 = 0.833345; divisor 1 + 3.841459/3 = 2.280486:
    // [0.473565/2.280486, 2.140255/2.280486] = [0.207660, 0.938508].
    expect(of(a, 'correct')).toMatchObject({ n: 3, interval: 'wilson' });
    close(of(a, 'correct'), 0.20766, 0.938508);
    // in b: 3 of 3, p = 1: centre 1.640243, z·√(0 + 0.106707) = 0.640243: [1/2.280486, 1] = [0.438503, 1].
    close(of(b, 'correct'), 0.438503, 1);
    // single_bool: 1 of 1: centre 1 + 1.920729, z·√(0 + 0.960365) = 1.920729, divisor 4.841459:
    // [1/4.841459, 1] = [0.206549, 1].
    expect(of(a, 'single_bool')).toMatchObject({ mean: 1, n: 1, interval: 'wilson' });
    close(of(a, 'single_bool'), 0.206549, 1);
    // The deltas are the means' differences; the intervals overlap (no "significant" difference).
    expect(b.delta?.scores).toEqual([
      { name: 'correct', delta: 0.333333 },
      { name: 'quality', delta: 0.65 },
    ]);
  });
});
