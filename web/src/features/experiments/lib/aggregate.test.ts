import { describe, expect, it } from 'vitest';
import { meanWithInterval, readAggregate, readDelta, scoreNames, separated, signed } from './aggregate';

describe('experiment aggregates', () => {
  const a = readAggregate({
    items: 100,
    scores: [{ name: 'exact', mean: 0.9, ci_low: 0.841, ci_high: 0.959, n: 100 }],
    cost_usd: 0.01,
    latency_p50_ms: 12,
    latency_p95_ms: 30,
    errors: 0,
  });
  const b = readAggregate({
    items: 100,
    scores: [
      { name: 'exact', mean: 0.99, ci_low: 0.97, ci_high: 1.01, n: 100 },
      { name: 'len', mean: 3, ci_low: null, ci_high: null, n: 1 },
    ],
    cost_usd: 'x',
  });

  it('reads the intervals and tolerates missing or mistyped fields', () => {
    expect(a.scores[0]).toEqual({ name: 'exact', mean: 0.9, ciLow: 0.841, ciHigh: 0.959, n: 100 });
    expect(b.costUsd).toBeNull();
    expect(b.p50).toBeNull();
    expect(readAggregate({}).scores).toEqual([]);
    expect(scoreNames([a, b])).toEqual(['exact', 'len']);
  });

  it('formats a mean with its interval, or alone when the API has none', () => {
    expect(meanWithInterval(a.scores[0])).toBe('0.9 [0.841, 0.959]');
    expect(meanWithInterval(b.scores[1])).toBe('3');
    expect(meanWithInterval(undefined)).toBe('—');
  });

  it('reads deltas and signs them', () => {
    const d = readDelta({ scores: [{ name: 'exact', delta: 0.07 }], cost_usd: -0.002, errors: 0 });
    expect(d?.scores.get('exact')).toBe(0.07);
    expect(readDelta(null)).toBeNull();
    expect([signed(0.07), signed(-0.1), signed(0), signed(null)]).toEqual(['+0.07', '−0.1', '±0', '—']);
  });

  it('calls intervals separated only when they do not overlap', () => {
    expect(separated(a.scores[0], b.scores[0])).toBe(true);
    expect(separated(a.scores[0], { name: 'exact', mean: 0.93, ciLow: 0.9, ciHigh: 0.96, n: 10 })).toBe(false);
    expect(separated(a.scores[0], b.scores[1])).toBe(false);
  });
});
