import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { devDefaults, devJwtSecret } from '../../../src/auth/dev-secret';
import { loadJose } from '../../../src/auth/jose';
import { createJwtVerifier } from '../../../src/auth/jwt';
import { loadConfig } from '../../../src/config';

/**
 * Issue 11 §4: the dev stack must not accept tokens anyone can mint. The secret is random per data
 * directory, the old published default is refused, HS256 is refused whenever a JWKS is configured,
 * and the stack listens on loopback unless told otherwise.
 */
const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
const PUBLISHED_DEFAULT = 'dev-only-secret-change-me-0123456789'; // what earlier versions used

async function hs256(secret: string, sub = 'mallory') {
  const { SignJWT } = await loadJose();
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}
const tmp = () => mkdtempSync(path.join(tmpdir(), 'dev-data-'));

describe('dev stack tokens', () => {
  it('makes a random secret per data directory, kept 0600 and reused', () => {
    const a = tmp();
    const b = tmp();
    const sa = devJwtSecret(a);
    expect(sa).toMatch(/^[0-9a-f]{64}$/);
    expect(devJwtSecret(a)).toBe(sa);
    expect(devJwtSecret(b)).not.toBe(sa);
    expect(statSync(path.join(a, 'jwt-secret')).mode & 0o777).toBe(0o600);
  });

  it('refuses a token signed with the formerly published default', async () => {
    const env = devDefaults({}, tmp());
    const verify = createJwtVerifier(loadConfig({ ...env }));
    await expect(verify(await hs256(PUBLISHED_DEFAULT))).rejects.toMatchObject({ status: 401 });
    await expect(verify(await hs256(env.AUTH_JWT_SECRET!))).resolves.toMatchObject({ sub: 'mallory' });
  });

  it('sets no HS256 secret and refuses HS256 tokens when an identity provider is configured', async () => {
    const env = devDefaults({ AUTH_JWKS_URL: 'https://idp.example.test/.well-known/jwks.json' }, tmp());
    expect(env.AUTH_JWT_SECRET).toBeUndefined();
    // Even a secret set by hand is not a second way in while a JWKS is configured.
    const verify = createJwtVerifier(
      loadConfig({
        AUTH_JWKS_URL: 'https://idp.example.test/.well-known/jwks.json',
        AUTH_JWT_SECRET: 'hand-set-secret-hand-set-secret',
      }),
    );
    await expect(verify(await hs256('hand-set-secret-hand-set-secret'))).rejects.toMatchObject({ status: 401 });
  });

  it('listens on loopback unless HOST is given', () => {
    expect(devDefaults({}, tmp()).HOST).toBe('127.0.0.1');
    expect(devDefaults({ HOST: '0.0.0.0' }, tmp()).HOST).toBeUndefined();
  });

  it("npm run token signs with the data directory's secret and refuses when a JWKS is configured", async () => {
    const dir = tmp();
    const env = {
      ...process.env,
      DEV_DATA_DIR: dir,
      AUTH_JWT_SECRET: '',
      AUTH_JWT_ISSUER: '',
      AUTH_JWT_AUDIENCE: '',
      AUTH_JWKS_URL: '',
    };
    const { stdout } = await run(path.join(root, 'node_modules/.bin/tsx'), ['scripts/token.ts', '--sub', 'alice'], {
      cwd: root,
      env,
    });
    const secret = readFileSync(path.join(dir, 'jwt-secret'), 'utf8').trim();
    await expect(createJwtVerifier(loadConfig({ AUTH_JWT_SECRET: secret }))(stdout.trim())).resolves.toMatchObject({
      sub: 'alice',
    });
    await expect(
      run(path.join(root, 'node_modules/.bin/tsx'), ['scripts/token.ts', '--sub', 'alice'], {
        cwd: root,
        env: { ...env, AUTH_JWKS_URL: 'https://idp.example.test/jwks' },
      }),
    ).rejects.toMatchObject({ code: 1 });
  });
});
