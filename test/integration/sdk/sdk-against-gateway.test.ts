import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../helpers/app';
import { seedTenant } from '../../helpers/auth';

const SDK_DIR = path.resolve(__dirname, '../../../sdk');

/**
 * The SDK's own real-server suite (sdk/test/server.integration.test.ts) is skipped unless it is
 * given a gateway. Here the real gateway runs and the suite must execute, not skip.
 */
describe('official SDK against the real gateway', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
  });
  afterAll(() => app?.stop());

  it('passes the SDK integration suite with every test executed', async () => {
    expect(existsSync(path.join(SDK_DIR, 'node_modules', '.bin', 'jest'))).toBe(true); // `npm test` installs sdk/ first
    const tenant = await seedTenant(app);
    const outputFile = path.join(tmpdir(), `sdk-it-${process.pid}-${Date.now()}.json`);
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(
        path.join(SDK_DIR, 'node_modules', '.bin', 'jest'),
        ['test/server.integration.test.ts', '--json', `--outputFile=${outputFile}`],
        {
          cwd: SDK_DIR,
          env: { ...process.env, GATEWAY_URL: app.url, GATEWAY_API_KEY: tenant.fullKey },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (c) => resolve({ code: c, output: out }));
    });
    const results = JSON.parse(readFileSync(outputFile, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
    };
    rmSync(outputFile, { force: true });
    if (code !== 0) throw new Error(`SDK integration suite failed:\n${output.slice(-4000)}`);
    expect(results.numFailedTests).toBe(0);
    expect(results.numPendingTests).toBe(0);
    expect(results.numPassedTests).toBeGreaterThan(0);
  }, 120_000);
});
