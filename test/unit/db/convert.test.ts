import { isoKeep, isoMs, isoOrNull, isoText, jsonOr, numOrNull } from '../../../src/db/convert';

// The converters replaced four variants of local helpers: each must answer exactly as its variant did.
const d = new Date('2026-01-31T12:00:00.123Z');

describe('db/convert', () => {
  it('isoText: a Date as ISO, anything else through String (the old `String(v)` variant)', () => {
    expect(isoText(d)).toBe('2026-01-31T12:00:00.123Z');
    expect(isoText('2026-01-31T12:00:00.123456Z')).toBe('2026-01-31T12:00:00.123456Z');
    expect(isoText(null)).toBe('null');
  });

  it('isoOrNull: null and undefined stay null, the rest as isoText', () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(undefined)).toBeNull();
    expect(isoOrNull(d)).toBe('2026-01-31T12:00:00.123Z');
    expect(isoOrNull('x')).toBe('x');
  });

  it('isoKeep: only a Date is converted; undefined stays undefined (a missing key stays missing)', () => {
    expect(isoKeep(d)).toBe('2026-01-31T12:00:00.123Z');
    expect(isoKeep('t')).toBe('t');
    expect(isoKeep(null)).toBeNull();
    expect(isoKeep(undefined)).toBeUndefined();
  });

  it('isoMs, numOrNull, jsonOr', () => {
    expect(isoMs(d.getTime())).toBe('2026-01-31T12:00:00.123Z');
    expect(numOrNull('1.50')).toBe(1.5);
    expect(numOrNull(null)).toBeNull();
    expect(numOrNull(undefined)).toBeNull();
    expect(jsonOr(null, {})).toEqual({});
    expect(jsonOr({ a: 1 }, {})).toEqual({ a: 1 });
  });
});
