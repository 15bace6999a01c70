import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createJwtVerifier } from '../../../src/auth/jwt';
import { loadConfig } from '../../../src/config';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function envWithout(...names: string[]) {
  const env = { ...process.env };
  for (const n of names) delete env[n];
  return env;
}

describe('npm run token (scripts/token.ts)', () => {
  it(
    'prints only a 1-hour HS256 token signed with AUTH_JWT_SECRET, ' + "or the dev stack's own secret when unset",
    async () => {
      const secret = 'script-secret-script-secret-0123';
      const a = await run(tsx, ['scripts/token.ts', '--sub', 'alice', '--email', 'alice@example.com'], {
        cwd: root,
        env: { ...envWithout('AUTH_JWT_ISSUER', 'AUTH_JWT_AUDIENCE'), AUTH_JWT_SECRET: secret },
      });
      expect(a.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
      const id = await createJwtVerifier(loadConfig({ AUTH_JWT_SECRET: secret }))(a.stdout.trim());
      expect(id).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
      expect((id.payload.exp as number) - (id.payload.iat as number)).toBe(3600);

      const dataDir = mkdtempSync(path.join(tmpdir(), 'dev-data-'));
      const b = await run(tsx, ['scripts/token.ts', '--sub', 'bob'], {
        cwd: root,
        env: {
          ...envWithout('AUTH_JWT_SECRET', 'AUTH_JWT_ISSUER', 'AUTH_JWT_AUDIENCE', 'AUTH_JWKS_URL'),
          DEV_DATA_DIR: dataDir,
        },
      });
      const devSecret = readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8').trim();
      await expect(
        createJwtVerifier(loadConfig({ AUTH_JWT_SECRET: devSecret }))(b.stdout.trim()),
      ).resolves.toMatchObject({ sub: 'bob', email: null });
    },
  );

  it('without --sub prints usage and exits non-zero', async () => {
    await expect(run(tsx, ['scripts/token.ts'], { cwd: root })).rejects.toMatchObject({ code: 2 });
  });
});
