import { attemptEvidence, scrubbed } from '../../../src/webhooks/evidence';
import { signBody } from '../../../src/webhooks/signing';

/** The attempt history's excerpts: 1 KB cuts on UTF-8 boundaries, secrets replaced before the cut. */
describe('attempt evidence', () => {
  const secret = 'f'.repeat(32);
  const signature = signBody('{"event":"test"}', secret);
  const secrets = [signature, signature.slice(7), secret];

  it('cuts at 1024 bytes without splitting a character', () => {
    expect(Buffer.byteLength(scrubbed('a'.repeat(2048), []))).toBe(1024);
    const euro = scrubbed('a' + '€'.repeat(600), []); // 1 + 3 × 600 bytes
    expect(Buffer.byteLength(euro)).toBe(1 + 3 * 341);
    expect(euro.endsWith('€')).toBe(true);
  });

  it('redacts the signature, its digest and the secret, even where the 1 KB cut falls inside one', () => {
    const text = `${'x'.repeat(1000)}${signature} ${signature.slice(7)} ${secret}`;
    const out = scrubbed(text, secrets);
    expect(out).not.toContain(signature.slice(7, 20));
    expect(out).toContain('[redacted]');
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(1024);
  });

  it('makes NUL and lone surrogates storable', () => {
    expect(scrubbed('a\u0000b\ud800c', [])).toBe('ab\ufffdc');
  });

  it('keeps every redirect and the last response as header lines and a truncated body', () => {
    const ev = attemptEvidence(
      {
        hops: [{ status: 307, location: `https://hooks.example/next?sig=${signature.slice(7)}` }],
        response: {
          headers: { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'], 'x-echo': signature },
          head: Buffer.from('y'.repeat(1300)),
          bytes: 2048,
        },
      },
      secrets,
    );
    expect(ev.redirects).toEqual([{ status: 307, location: 'https://hooks.example/next?sig=[redacted]' }]);
    expect(ev.response_headers).toBe('content-type: text/plain\nset-cookie: a=1\nset-cookie: b=2\nx-echo: [redacted]');
    expect(ev.response_body).toBe('y'.repeat(1024));
    expect(ev.response_body_truncated).toBe(true);
    expect(attemptEvidence({ hops: [], response: null }, secrets)).toEqual({
      redirects: [],
      response_headers: null,
      response_body: null,
      response_body_truncated: false,
    });
  });
});
