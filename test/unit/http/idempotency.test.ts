import { requestFingerprint } from '../../../src/http/idempotency';

/** What counts as "the same request" for an Idempotency-Key (the rest: the webhooks integration test). */
describe('idempotency fingerprint', () => {
  const fp = (body: unknown, originalUrl = '/api/v1/webhooks/a/recover', method = 'POST') =>
    requestFingerprint({ method, originalUrl, body });
  it('is the same for the same request whatever the key order or query string, and differs otherwise', () => {
    expect(fp({ a: 1, b: { c: [1, { d: 2, e: 3 }] } })).toBe(fp({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 }));
    expect(fp({ a: 1 }, '/api/v1/webhooks/a/recover?x=1')).toBe(fp({ a: 1 }));
    expect(fp(undefined)).toBe(fp(null));
    expect(fp({ a: 1 })).not.toBe(fp({ a: 2 }));
    expect(fp({ a: 1 })).not.toBe(fp({ a: 1 }, '/api/v1/webhooks/b/recover'));
    expect(fp({ c: [1, 2] })).not.toBe(fp({ c: [2, 1] }));
  });
});
