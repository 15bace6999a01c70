import { describe, expect, it } from 'vitest';
import { conditions } from './conditions';

describe("a shared stats view's conditions", () => {
  it('reads each parameter in the filter builder’s order, with units, the view’s options last', () => {
    const got = conditions({
      granularity: 'day',
      property: ['tier:pro', 'region:eu'],
      min_cost: '0.01',
      streamed: 'true',
      model: 'gpt-4o-mini',
      order_by: 'cost_usd',
      some_new_option: 'x',
    });
    expect(got.map((c) => [c.label, c.value])).toEqual([
      ['Model', 'gpt-4o-mini'],
      ['Cost at least', '$0.01'],
      ['Streamed', 'yes'],
      ['Custom property', 'tier = pro and region = eu'],
      ['Buckets', 'by day'],
      ['Groups ranked by', 'cost'],
      ['Some new option', 'x'],
    ]);
  });

  it('keeps a value it cannot read as it is, and has nothing to say about an empty filter', () => {
    expect(conditions({ max_latency_ms: 'soon' })).toEqual([
      { key: 'max_latency_ms', label: 'Latency at most', value: 'soon' },
    ]);
    expect(conditions({})).toEqual([]);
  });
});
