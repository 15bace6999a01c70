import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from '../config';

/**
 * Master keys for encrypting provider keys at rest (AES-256-GCM). The current key encrypts; it and
 * the retired keys in MASTER_KEYS_OLD decrypt, chosen by the key id stored on each row.
 */
export interface Keyring {
  currentId: string;
  keys: Map<string, Buffer>;
}

export function parseMasterKey(value: string, name = 'MASTER_KEY'): Buffer {
  const v = value.trim();
  let buf: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(v)) buf = Buffer.from(v, 'hex');
  else if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(v))
    buf = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (!buf || buf.length !== 32)
    throw new ConfigError(`${name} must be 32 bytes written as 64 hex characters or base64`);
  return buf;
}

/**
 * Builds the keyring from MASTER_KEY (+ MASTER_KEY_ID, MASTER_KEYS_OLD). Production roles must set
 * MASTER_KEY; with `{role:'dev'}` a random key is created once and kept in `.data/master.key`, so
 * every later call (and every later run) gets the same key. Pure apart from that file: the runtime
 * resolves the keyring once and hands it on (`ctx.keyring`).
 */
export function resolveMasterKey(config: Config, opts: { role?: string; dataDir?: string } = {}): Keyring {
  let current: Buffer;
  if (config.MASTER_KEY) current = parseMasterKey(config.MASTER_KEY);
  else if (opts.role === 'dev') current = devMasterKey(opts.dataDir);
  else {
    throw new ConfigError(
      'MASTER_KEY is required: 32 random bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`). ' +
        'It encrypts provider keys at rest.',
    );
  }
  const keys = new Map<string, Buffer>([[config.MASTER_KEY_ID, current]]);
  for (const entry of (config.MASTER_KEYS_OLD ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = entry.indexOf(':');
    if (at <= 0) throw new ConfigError('MASTER_KEYS_OLD must look like id:key,id:key');
    const id = entry.slice(0, at);
    if (id === config.MASTER_KEY_ID) throw new ConfigError(`MASTER_KEYS_OLD repeats the current MASTER_KEY_ID ${id}`);
    keys.set(id, parseMasterKey(entry.slice(at + 1), `MASTER_KEYS_OLD (${id})`));
  }
  return { currentId: config.MASTER_KEY_ID, keys };
}

function devMasterKey(dataDir = '.data'): Buffer {
  const file = path.join(dataDir, 'master.key');
  try {
    return parseMasterKey(fs.readFileSync(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const hex = randomBytes(32).toString('hex');
  try {
    fs.writeFileSync(file, hex + '\n', { mode: 0o600, flag: 'wx' });
    return Buffer.from(hex, 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseMasterKey(fs.readFileSync(file, 'utf8'), file);
    throw err;
  }
}

const VERSION = 'v1';

/**
 * AES-256-GCM with a random 96-bit nonce. `aad` binds the ciphertext to its row (project and
 * provider), so a ciphertext copied onto another row does not decrypt. Output: `v1.<b64 iv|tag|ct>`.
 */
export function encryptSecret(ring: Keyring, plaintext: string, aad: string): { ciphertext: string; keyId: string } {
  const key = ring.keys.get(ring.currentId)!;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const blob = Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
  return { ciphertext: `${VERSION}.${blob}`, keyId: ring.currentId };
}

class DecryptionError extends Error {}

export function decryptSecret(ring: Keyring, ciphertext: string, keyId: string, aad: string): string {
  const key = ring.keys.get(keyId);
  if (!key) throw new DecryptionError(`master key ${keyId} is not configured (add it to MASTER_KEYS_OLD)`);
  const [version, blob] = ciphertext.split('.', 2);
  if (version !== VERSION || !blob) throw new DecryptionError('unknown ciphertext format');
  const raw = Buffer.from(blob, 'base64');
  if (raw.length < 28) throw new DecryptionError('ciphertext too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptionError('ciphertext does not authenticate under its master key');
  }
}

/** `sk-proj-abcdef...wxyz` → `sk-p…wxyz`; short values reveal nothing but their length class. */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return '…' + secret.slice(-2);
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}
