import { judge, mad, median, MIN_BASELINE_HOURS, type Point } from '../../../src/anomalies/detector';

const week = (value: (h: number) => number | null, calls = 30): Point[] =>
  Array.from({ length: 168 }, (_, h) => ({ hourOfDay: h % 24, calls, value: value(h) }));

describe('anomaly detector statistics', () => {
  it('median and MAD', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(mad([1, 2, 3, 4, 100])).toBe(1);
  });

  it('a spike far outside the baseline is an anomaly with its expected range and score', () => {
    const base = week((h) => 100 + (h % 5)); // 100..104: median 102, MAD 1
    const v = judge('requests', 300, 300, base, 10)!;
    expect(v.direction).toBe('up');
    expect(v.median).toBe(102);
    // scale = max(1.4826 × 1, floor 5, 10 % of 102 = 10.2) = 10.2
    expect(v.score).toBeCloseTo((300 - 102) / 10.2, 2);
    expect(v.low).toBeCloseTo(102 - 5 * 10.2, 6);
    expect(v.high).toBeCloseTo(102 + 5 * 10.2, 6);
    expect(v.seasonal).toBe(true);
    expect(v.points).toBe(7);
  });

  it('flat data and ordinary wiggles are not anomalies; a flat baseline (MAD 0) is floored', () => {
    const flat = week(() => 0.05);
    expect(judge('error_rate', 0.05, 100, flat, 3)).toBeNull();
    // MAD 0: the floor (2 points of error rate) keeps 0.1 from firing, 0.2 fires.
    expect(judge('error_rate', 0.1, 100, flat, 3)).toBeNull();
    expect(judge('error_rate', 0.2, 100, flat, 3)).toMatchObject({ direction: 'up', median: 0.05 });
  });

  it('only the directions that matter: fewer errors is no anomaly, fewer calls is', () => {
    const base = week(() => 0.3);
    expect(judge('error_rate', 0, 100, base, 3)).toBeNull();
    expect(
      judge(
        'requests',
        0,
        0,
        week(() => 200),
        3,
      ),
    ).toMatchObject({ direction: 'down', low: 100 });
  });

  it('too little data: fewer baseline hours with traffic, or too few calls in the window for a ratio', () => {
    const thin = week((h) => (h < MIN_BASELINE_HOURS - 1 ? 100 : 0)).map((p, h) => ({
      ...p,
      calls: h < MIN_BASELINE_HOURS - 1 ? 30 : 0,
    }));
    expect(judge('requests', 10_000, 10_000, thin, 3)).toBeNull();
    expect(
      judge(
        'latency_p95',
        10_000,
        19,
        week(() => 200),
        3,
      ),
    ).toBeNull();
    expect(
      judge(
        'latency_p95',
        10_000,
        20,
        week(() => 200),
        3,
      ),
    ).not.toBeNull();
  });

  it('compares with the same hour of day when most days had traffic then, else with every hour', () => {
    // Busy at 10:00 (1000), quiet otherwise (100): 1000 at 10:00 is normal, at 03:00 it is not.
    const daily = week((h) => (h % 24 === 10 ? 1000 : 100));
    expect(judge('requests', 1000, 1000, daily, 10)).toBeNull();
    expect(judge('requests', 1000, 1000, daily, 3)).toMatchObject({ direction: 'up', seasonal: true });
    // Hour 10 had traffic on only 3 days: every hour is the baseline (median 100).
    const sparse = week((h) => (h % 24 === 10 && h > 96 ? 1000 : h % 24 === 10 ? null : 100)).map((p) => ({
      ...p,
      calls: p.value === null ? 0 : 30,
    }));
    expect(judge('requests', 1000, 1000, sparse, 10)).toMatchObject({ seasonal: false, median: 100 });
  });
});
