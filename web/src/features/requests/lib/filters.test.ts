import { describe, expect, it } from 'vitest';
import { rangeWindow, rowError, rowsToSearch, searchToQuery, searchToRows, type FilterRow } from './filters';

describe('filter builder mapping', () => {
  it('maps each field and operator onto the list route’s query parameters', () => {
    const rows: FilterRow[] = [
      { field: 'model', op: 'is', value: ' gpt-4o-mini ' },
      { field: 'status', op: 'is', value: '4xx' },
      { field: 'cost', op: 'gte', value: '0.01' },
      { field: 'cost', op: 'lte', value: '2' },
      { field: 'latency', op: 'lte', value: '1500' },
      { field: 'cache_hit', op: 'is', value: 'false' },
      { field: 'user_id', op: 'is', value: 'alice' },
      { field: 'session_id', op: 'is', value: 's-1' },
      { field: 'prompt', op: 'is', value: 'support@3' },
      { field: 'property', op: 'is', name: 'tier', value: 'gold' },
      { field: 'property', op: 'is', name: 'region', value: 'eu;west:1' },
    ];
    const { search, errors } = rowsToSearch(rows);
    expect(errors).toEqual({});
    expect(search).toEqual({
      model: 'gpt-4o-mini',
      status: '4xx',
      min_cost: '0.01',
      max_cost: '2',
      max_latency_ms: '1500',
      cache_hit: 'false',
      user_id: 'alice',
      session_id: 's-1',
      prompt: 'support@3',
      property: 'tier:gold;region:eu\\;west:1',
    });
    expect(searchToQuery(search, { from: '2026-01-01T00:00:00.000Z' })).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      model: 'gpt-4o-mini',
      status: '4xx',
      min_cost: 0.01,
      max_cost: 2,
      max_latency_ms: 1500,
      cache_hit: 'false',
      user_id: 'alice',
      session_id: 's-1',
      prompt: 'support@3',
      property: ['tier:gold', 'region:eu;west:1'],
    });
  });

  it('reads the rows back from the URL (a shared link opens the same builder)', () => {
    const rows: FilterRow[] = [
      { field: 'model', op: 'is', value: 'claude' },
      { field: 'status', op: 'is', value: '500' },
      { field: 'latency', op: 'gte', value: '100' },
      { field: 'streamed', op: 'is', value: 'true' },
      { field: 'property', op: 'is', name: 'tier', value: 'gold' },
    ];
    expect(searchToRows(rowsToSearch(rows).search)).toEqual(rows);
  });

  it('refuses what the API would refuse, row by row, and applies none of those', () => {
    const { search, errors } = rowsToSearch([
      { field: 'status', op: 'is', value: '42' },
      { field: 'cost', op: 'gte', value: '-1' },
      { field: 'api_key_id', op: 'is', value: 'not-a-uuid' },
      { field: 'property', op: 'is', name: 'bad name', value: 'x' },
      { field: 'model', op: 'gte', value: 'gpt' },
      { field: 'model', op: 'is', value: '' },
      { field: 'provider', op: 'is', value: 'openai' },
    ]);
    expect(Object.keys(errors).map(Number)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(errors[0]).toMatch(/200 or a class like 4xx/);
    expect(search).toEqual({ provider: 'openai' });
    expect(rowError({ field: 'prompt', op: 'is', value: 'name@0' })).toMatch(/prompt name/);
  });

  it('a later row for the same parameter wins; the last range bound per side is kept', () => {
    expect(
      rowsToSearch([
        { field: 'model', op: 'is', value: 'a' },
        { field: 'model', op: 'is', value: 'b' },
      ]).search,
    ).toEqual({ model: 'b' });
  });

  it('leaves out what is unset or not a number, and keeps the saved filter', () => {
    expect(searchToQuery({ min_cost: 'abc', streamed: 'maybe', saved_filter_id: 'f1' })).toEqual({
      saved_filter_id: 'f1',
    });
  });

  it('turns presets into an open-ended window and passes a custom one through', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(rangeWindow('1h', {}, now)).toEqual({ from: '2026-11-26T11:00:00.000Z' });
    expect(rangeWindow('7d', {}, now)).toEqual({ from: '2026-11-19T12:00:00.000Z' });
    expect(rangeWindow('custom', { from: 'a', to: 'b' }, now)).toEqual({ from: 'a', to: 'b' });
    expect(rangeWindow(undefined, { from: 'a' }, now)).toEqual({});
  });
});
