import { describe, expect, it } from 'vitest';
import type { RequestPoint } from '../../api/stats';
import { dimensionFilter, pointValue, seriesRange, windowHours } from './lib';

const window = { start: '2026-07-08T11:30:00.000Z', end: '2026-07-08T12:30:00.000Z' };

describe("an anomaly's hourly series", () => {
  it('spans 24 hours before the hour of its detection to 6 after, never past the current hour', () => {
    expect(seriesRange({ window }, Date.parse('2026-07-09T00:00:00Z'))).toEqual({
      from: '2026-07-07T12:00:00.000Z',
      to: '2026-07-08T19:00:00.000Z',
    });
    expect(seriesRange({ window }, Date.parse('2026-07-08T12:40:00Z')).to).toBe('2026-07-08T13:00:00.000Z');
  });

  it('shades the hour buckets its window falls in, around their points', () => {
    expect(windowHours({ window })).toEqual({ from: '2026-07-08T10:30:00.000Z', to: '2026-07-08T12:30:00.000Z' });
    const onTheHour = { start: '2026-07-08T11:00:00.000Z', end: '2026-07-08T12:00:00.000Z' };
    expect(windowHours({ window: onTheHour })).toEqual({
      from: '2026-07-08T10:30:00.000Z',
      to: '2026-07-08T11:30:00.000Z',
    });
  });

  it('filters by its dimension and reads its measure from a point', () => {
    expect(dimensionFilter({ dimension: 'model', dimension_value: 'gpt-4o' })).toEqual({ model: 'gpt-4o' });
    expect(dimensionFilter({ dimension: 'user', dimension_value: 'u1' })).toEqual({ user_id: 'u1' });
    expect(dimensionFilter({ dimension: 'project', dimension_value: '' })).toEqual({});
    const p = { requests: 4, error_rate: 0.25, total_tokens: 100, cost_usd: 0.5, latency_p95_ms: 900 } as RequestPoint;
    expect(pointValue('error_rate', p)).toBe(25);
    expect(pointValue('tokens_per_request', p)).toBe(25);
    expect(pointValue('latency_p95', p)).toBe(900);
    expect(pointValue('tokens_per_request', { ...p, requests: 0 })).toBeNull();
  });
});
