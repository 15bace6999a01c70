import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../src/config';
import { decryptSecret, encryptSecret, maskSecret, parseMasterKey, resolveMasterKey } from '../../../src/auth/crypto';

const hex = () => randomBytes(32).toString('hex');
const cfg = (env: Record<string, string>) => loadConfig({ ...env });

describe('master keys and AES-256-GCM', () => {
  it('parses 32-byte keys as hex or base64 (standard or url-safe); rejects anything else naming the variable', () => {
    const raw = randomBytes(32);
    expect(parseMasterKey(raw.toString('hex')).equals(raw)).toBe(true);
    expect(parseMasterKey(raw.toString('base64')).equals(raw)).toBe(true);
    expect(parseMasterKey(raw.toString('base64url')).equals(raw)).toBe(true);
    expect(() => parseMasterKey('abc')).toThrow(/MASTER_KEY must be 32 bytes/);
    expect(() => parseMasterKey(randomBytes(16).toString('hex'))).toThrow(/MASTER_KEY/);
    expect(() => parseMasterKey(randomBytes(31).toString('base64'))).toThrow(/MASTER_KEY/);
  });

  it('round-trips; ciphertext differs every time and never contains the plaintext', () => {
    const ring = resolveMasterKey(cfg({ MASTER_KEY: hex() }));
    const secret = 'sk-live-abcdefghijklmnopqrstuvwxyz';
    const a = encryptSecret(ring, secret, 'aad');
    const b = encryptSecret(ring, secret, 'aad');
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.ciphertext).not.toContain('abcdefgh');
    expect(Buffer.from(a.ciphertext.slice(3), 'base64').toString('latin1')).not.toContain('abcdefgh');
    expect(decryptSecret(ring, a.ciphertext, a.keyId, 'aad')).toBe(secret);
  });

  it('fails closed on wrong AAD, tampering, wrong or unknown key', () => {
    const ring = resolveMasterKey(cfg({ MASTER_KEY: hex() }));
    const { ciphertext, keyId } = encryptSecret(ring, 'secret-value', 'row-1');
    expect(() => decryptSecret(ring, ciphertext, keyId, 'row-2')).toThrow(/authenticate/);
    const raw = Buffer.from(ciphertext.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => decryptSecret(ring, `v1.${raw.toString('base64')}`, keyId, 'row-1')).toThrow(/authenticate/);
    const other = resolveMasterKey(cfg({ MASTER_KEY: hex() }));
    expect(() => decryptSecret(other, ciphertext, keyId, 'row-1')).toThrow(/authenticate/);
    expect(() => decryptSecret(ring, ciphertext, 'k9', 'row-1')).toThrow(/k9 is not configured/);
    expect(() => decryptSecret(ring, 'v2.abc', keyId, 'row-1')).toThrow(/format/);
  });

  it('rotation: new key encrypts, old keys listed in MASTER_KEYS_OLD still decrypt', () => {
    const k1 = hex();
    const old = resolveMasterKey(cfg({ MASTER_KEY: k1, MASTER_KEY_ID: 'k1' }));
    const enc = encryptSecret(old, 'v', 'a');
    const rotated = resolveMasterKey(cfg({ MASTER_KEY: hex(), MASTER_KEY_ID: 'k2', MASTER_KEYS_OLD: `k1:${k1}` }));
    expect(decryptSecret(rotated, enc.ciphertext, 'k1', 'a')).toBe('v');
    expect(encryptSecret(rotated, 'v', 'a').keyId).toBe('k2');
    expect(() => resolveMasterKey(cfg({ MASTER_KEY: hex(), MASTER_KEYS_OLD: 'nocolon' }))).toThrow(/MASTER_KEYS_OLD/);
    expect(() => resolveMasterKey(cfg({ MASTER_KEY: hex(), MASTER_KEYS_OLD: 'k0:short' }))).toThrow(
      /MASTER_KEYS_OLD \(k0\)/,
    );
    expect(() =>
      resolveMasterKey(cfg({ MASTER_KEY: hex(), MASTER_KEY_ID: 'k1', MASTER_KEYS_OLD: `k1:${hex()}` })),
    ).toThrow(/repeats/);
  });

  it('production roles without MASTER_KEY fail with a clear error; dev stashes a key once in .data/master.key', () => {
    expect(() => resolveMasterKey(cfg({}))).toThrow(/MASTER_KEY is required/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mk-'));
    try {
      const c1 = cfg({});
      const a = resolveMasterKey(c1, { role: 'dev', dataDir: dir });
      const file = path.join(dir, 'master.key');
      expect(fs.readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
      expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
      // The same dev key file yields the same key on every later resolution (and every later run).
      const again = resolveMasterKey(c1, { role: 'dev', dataDir: dir });
      expect(again.currentId).toBe(a.currentId);
      expect(again.keys.get('k1')!.equals(a.keys.get('k1')!)).toBe(true);
      const b = resolveMasterKey(cfg({}), { role: 'dev', dataDir: dir });
      expect(b.keys.get('k1')!.equals(a.keys.get('k1')!)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('masks keys as first 4 … last 4, revealing nothing of short ones but the tail', () => {
    expect(maskSecret('sk-proj-abcdefghijklmnop1234')).toBe('sk-p…1234');
    expect(maskSecret('short')).toBe('…rt');
  });
});
