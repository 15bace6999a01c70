import { resolveGranularity } from '../../../src/analytics/buckets';

const H = 3_600_000;
const auto = (hours: number) => {
  const g = resolveGranularity('auto', 0, hours * H);
  return `${g.step} ${g.unit}`;
};

describe('auto granularity', () => {
  it('takes the first step giving at most 50 buckets below a day', () => {
    expect(auto(1)).toBe('5 minute'); // 60 one-minute buckets are too many
    expect(auto(4)).toBe('5 minute');
    expect(auto(20)).toBe('30 minute'); // 40 buckets
  });
  it('never cuts a day or more finer than an hour (whole hours come from the rollups)', () => {
    expect(auto(24)).toBe('1 hour'); // 48 half hours would fit, hours are chosen
    expect(auto(48)).toBe('1 hour');
    expect(auto(7 * 24)).toBe('6 hour');
    expect(auto(30 * 24)).toBe('1 day');
  });
  it('keeps explicit granularities as asked', () => {
    expect(resolveGranularity('minute', 0, 24 * H)).toMatchObject({ unit: 'minute', step: 1 });
  });
});
