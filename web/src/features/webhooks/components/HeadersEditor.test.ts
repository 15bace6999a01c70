import { describe, expect, it } from 'vitest';
import { headerError, headersBody, type HeaderRow } from './HeadersEditor';

const rows = (...pairs: [string, string][]): HeaderRow[] => pairs.map(([name, value]) => ({ name, value }));

describe('custom header rows', () => {
  it('accepts what the API takes and sends it as one object', () => {
    const ok = rows(['Authorization', 'Bearer t0ken'], [' X-Tenant ', 'acme']);
    expect(ok.map((_, i) => headerError(ok, i))).toEqual([null, null]);
    expect(headersBody(ok)).toEqual({ Authorization: 'Bearer t0ken', 'X-Tenant': 'acme' });
  });

  it('refuses what the API would: bad or reserved names, duplicates, empty or non-ASCII values', () => {
    const bad = rows(
      ['X Bad', 'v'],
      ['X-Service-Signature', 'v'],
      ['webhook-id', 'v'],
      ['Host', 'v'],
      ['X-A', 'v'],
      ['x-a', 'v'],
      ['X-B', ''],
      ['X-C', 'line\nbreak'],
      ['X-D', 'é'],
    );
    expect(bad.map((_, i) => headerError(bad, i))).toEqual([
      { name: 'Letters, digits and - _ . (up to 64)' },
      { name: 'Set by the service' },
      { name: 'Set by the service' },
      { name: 'Set by the service' },
      null,
      { name: 'Already listed' },
      { value: 'A value' },
      { value: 'Printable ASCII, up to 1024' },
      { value: 'Printable ASCII, up to 1024' },
    ]);
  });
});
