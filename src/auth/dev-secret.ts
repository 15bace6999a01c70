import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The HS256 secret of the local dev stack: 32 random bytes made once per data directory and kept in
 * `<dataDir>/jwt-secret` (mode 0600), read by `npm run dev` and `npm run token`. Nothing published
 * in the repository can mint a token this server accepts.
 */
const DEV_JWT_SECRET_FILE = 'jwt-secret';

export function devJwtSecret(dataDir: string): string {
  const file = path.join(dataDir, DEV_JWT_SECRET_FILE);
  try {
    const s = readFileSync(file, 'utf8').trim();
    if (s.length >= 32) return s;
  } catch {
    // first run: made below
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  // 'wx' so two starting processes cannot both write: the loser reads the winner's secret.
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    return readFileSync(file, 'utf8').trim();
  }
  chmodSync(file, 0o600);
  return secret;
}

/**
 * Settings `npm run dev` adds when they are unset: loopback only, and a local HS256 secret only
 * when no identity provider (AUTH_JWKS_URL) is configured.
 */
export function devDefaults(env: NodeJS.ProcessEnv, dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!env.HOST) out.HOST = '127.0.0.1';
  if (!env.LOG_LEVEL) out.LOG_LEVEL = 'info';
  if (!env.AUTH_JWT_SECRET && !env.AUTH_JWKS_URL) out.AUTH_JWT_SECRET = devJwtSecret(dataDir);
  return out;
}
