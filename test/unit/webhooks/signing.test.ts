import { createHmac } from 'node:crypto';
import { buildBody } from '../../../src/webhooks/payload';
import { signBody, standardHeaders, verifySignature } from '../../../src/webhooks/signing';

describe('webhook signing and body', () => {
  const secret = '0123456789abcdef0123456789abcdef';

  it('signs the raw bytes with HMAC-SHA256 as sha256=<lowercase hex>', () => {
    const body = '{"event":"test","x":"é"}';
    const expected = createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signBody(body, secret)).toBe(`sha256=${expected}`);
    expect(signBody(body, secret)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('verifies over the raw body only: re-serialised JSON or another secret fails', () => {
    const body = buildBody('request.created', 'w1', '2025-01-01T00:00:00.000Z', { request: { id: 'r', b: 1, a: 2 } });
    const sig = signBody(body, secret);
    expect(verifySignature(body, secret, sig)).toBe(true);
    expect(verifySignature(Buffer.from(body), secret, sig)).toBe(true);
    expect(verifySignature(JSON.stringify(JSON.parse(body), null, 1), secret, sig)).toBe(false);
    expect(verifySignature(body, 'f'.repeat(32), sig)).toBe(false);
    expect(verifySignature(body, secret, undefined)).toBe(false);
    expect(verifySignature(body, secret, 'sha256=00')).toBe(false);
  });

  it('puts event, webhook_id and timestamp first and keeps the object from overriding them', () => {
    const body = buildBody('trace.completed', 'wh', new Date('2025-02-03T04:05:06Z'), {
      event: 'spoofed',
      trace: { id: 't1', status: 'completed' },
    });
    expect(body).toBe(
      '{"event":"trace.completed","webhook_id":"wh","timestamp":"2025-02-03T04:05:06.000Z",' +
        '"trace":{"id":"t1","status":"completed"}}',
    );
  });

  it('adds Standard Webhooks headers: v1,<base64 HMAC of "<id>.<ts>.<body>"> per secret, current first', () => {
    const body = '{"event":"test","x":"é"}';
    const old = 'f'.repeat(32);
    const { headers, digests } = standardHeaders('d-1', 1_700_000_000, body, [secret, old]);
    // Written out from the Standard Webhooks text: key = the secret's characters as bytes.
    const v1 = (key: string) =>
      createHmac('sha256', Buffer.from(key, 'utf8')).update(`d-1.1700000000.${body}`, 'utf8').digest('base64');
    expect(headers).toEqual({
      'webhook-id': 'd-1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${v1(secret)} v1,${v1(old)}`,
    });
    expect(digests).toEqual([v1(secret), v1(old)]);
    const fromBytes = standardHeaders('d-1', 1_700_000_000, Buffer.from(body), [secret]);
    expect(fromBytes.headers['webhook-signature']).toBe(`v1,${v1(secret)}`);
  });
});
