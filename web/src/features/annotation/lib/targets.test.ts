import { describe, expect, it } from 'vitest';
import { describeTargets, parseIds, TARGET_DEFAULTS, targetsError, toTargets, type TargetValues } from './targets';

const ID = '0b6f3c1e-6a0e-4a53-9a57-0d2b8f3f7e21';
const now = new Date('2026-11-26T12:00:00Z');

describe('campaign targets', () => {
  it('reads pasted ids one per line, by commas or spaces, without duplicates', () => {
    expect(parseIds(` a, b\nc  a\n\n`)).toEqual(['a', 'b', 'c']);
  });

  it('sends recent calls as a source over the window, with the model filter when given', () => {
    expect(toTargets({ ...TARGET_DEFAULTS, hours: '1', limit: '20', model: ' gpt-4o ' }, now)).toEqual({
      source: {
        kind: 'requests',
        from: '2026-11-26T11:00:00.000Z',
        to: '2026-11-26T12:00:00.000Z',
        limit: 20,
        filter: { model: 'gpt-4o' },
      },
    });
    expect(toTargets({ ...TARGET_DEFAULTS, kind: 'traces', model: 'ignored' }, now)).toEqual({
      source: { kind: 'traces', from: '2026-11-25T12:00:00.000Z', to: '2026-11-26T12:00:00.000Z', limit: 100 },
    });
  });

  it('sends pasted ids as items of their kind', () => {
    const ids = (v: Partial<TargetValues>) => toTargets({ ...TARGET_DEFAULTS, mode: 'ids', ...v });
    expect(ids({ ids: `${ID}\n${ID}` })).toEqual({ items: [{ request_id: ID }] });
    expect(ids({ idKind: 'trace', ids: 't1,t2' })).toEqual({ items: [{ trace_id: 't1' }, { trace_id: 't2' }] });
    expect(ids({ idKind: 'session', ids: 's1' })).toEqual({ items: [{ session_id: 's1' }] });
  });

  it('refuses what the API would refuse, naming the field', () => {
    expect(targetsError({ ...TARGET_DEFAULTS, limit: '0' })).toEqual({ field: 'limit', message: 'From 1 to 10,000' });
    const pasted = (v: Partial<TargetValues>) => targetsError({ ...TARGET_DEFAULTS, mode: 'ids', ...v });
    expect(pasted({})).toEqual({ field: 'ids', message: 'Paste at least one id' });
    expect(pasted({ ids: `${ID} nope` })).toEqual({ field: 'ids', message: 'Not a request id: nope' });
    expect(pasted({ idKind: 'trace', ids: 'nope' })).toBeNull();
    const many = Array.from({ length: 1001 }, (_, i) => `t${i}`).join(' ');
    expect(pasted({ ids: many })?.message).toBe('At most 1,000 ids at once');
  });

  it('says what the campaign will hold', () => {
    expect(describeTargets(TARGET_DEFAULTS)).toBe('up to 100 calls of the last 24 hours');
    expect(describeTargets({ ...TARGET_DEFAULTS, mode: 'ids', idKind: 'trace', ids: 'a' })).toBe('1 pasted trace id');
  });
});
