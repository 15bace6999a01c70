import { redact, REDACTED } from '../../../src/audit/redact';
import { generateApiKey, hashApiKey, looksLikeApiKey } from '../../../src/auth/api-keys';
import { randomBase62 } from '../../../src/util/random';

describe('audit redaction', () => {
  it('removes secret-looking fields at any depth and keeps ids and display fields', () => {
    const out = redact({
      id: 'x',
      api_key: 'sk-1',
      apiKey: 'sk-2',
      key_hash: 'h',
      token: 't',
      secret: 's',
      password: 'p',
      api_key_ciphertext: 'c',
      api_key_id: 'keep-me',
      prefix: 'sl_live_abcd',
      last4: 'wxyz',
      key_hint: 'sk-p…1234',
      nested: [{ webhook: { secret: 'deep', name: 'n' } }],
      when: new Date('2020-01-01T00:00:00Z'),
      nothing: null,
    });
    expect(out).toMatchObject({
      id: 'x',
      api_key: REDACTED,
      apiKey: REDACTED,
      key_hash: REDACTED,
      token: REDACTED,
      secret: REDACTED,
      password: REDACTED,
      api_key_ciphertext: REDACTED,
      api_key_id: 'keep-me',
      prefix: 'sl_live_abcd',
      last4: 'wxyz',
      key_hint: 'sk-p…1234',
      nested: [{ webhook: { secret: REDACTED, name: 'n' } }],
      when: '2020-01-01T00:00:00.000Z',
      nothing: null,
    });
  });
});

describe('API key format', () => {
  it('full keys start sl_live_ (never sl_live_pub_), public keys sl_live_pub_; 43 base62 chars of secret', () => {
    for (let i = 0; i < 200; i++) {
      const f = generateApiKey('full');
      expect(f.key).toMatch(/^sl_live_[0-9A-Za-z]{43}$/);
      expect(f.key.startsWith('sl_live_pub_')).toBe(false);
      expect(f.hash).toBe(hashApiKey(f.key));
      expect(f.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(f.prefix).toBe(f.key.slice(0, 12));
      expect(f.last4).toBe(f.key.slice(-4));
    }
    const p = generateApiKey('public');
    expect(p.key).toMatch(/^sl_live_pub_[0-9A-Za-z]{43}$/);
    expect(looksLikeApiKey(p.key)).toBe(true);
    expect(looksLikeApiKey('eyJhbGciOi...')).toBe(false);
  });

  it('random base62 is roughly uniform (no modulo bias toward the first characters)', () => {
    const counts = new Map<string, number>();
    const s = randomBase62(62 * 400);
    for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(250);
      expect(n).toBeLessThan(560);
    }
  });
});
