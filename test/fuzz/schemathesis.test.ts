import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveSchemathesis } from '../../scripts/schemathesis';
import { startTestApp, type TestApp } from '../helpers/app';
import { seedTenant, type SeededTenant } from '../helpers/auth';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';

/**
 * Property-based fuzzing of every documented operation with schemathesis, as a JWT admin, a full
 * key and a public key: any 5xx, any response outside its documented statuses or schema, or a crash
 * fails the run. Bounded (examples per operation, fixed seed) to stay within a few minutes on 2 cores.
 */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 12);
const CHECKS = 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance';

interface RunResult {
  code: number | null;
  output: string;
  report: Record<string, unknown> | null;
}

function runSchemathesis(st: string, app: TestApp, headers: string[], label: string): Promise<RunResult> {
  const dir = mkdtempSync(path.join(tmpdir(), `st-${label}-`));
  const args = ['run', `${app.url}/api/v1/openapi.json`, '--url', app.url, '--checks', CHECKS, '--max-examples', String(MAX_EXAMPLES), '--seed', '20261122',
    '--workers', '2', '--phases', 'examples,coverage,fuzzing', '--suppress-health-check', 'all', '--request-timeout', '10', '--no-shrink',
    '--report', 'json', '--report-dir', dir, '--output-truncate', 'true', '--warnings', 'off',
    // The proxy forwards whatever it gets to the (fake) upstream: fuzzing it tests the fake, not us.
    '--exclude-path-regex', '^/proxy/', ...headers.flatMap((h) => ['-H', h])];
  return new Promise((resolve) => {
    const child = spawn(st, args, { env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const file = readdirSync(dir).find((f) => f.endsWith('.json'));
      resolve({ code, output, report: file ? JSON.parse(readFileSync(path.join(dir, file), 'utf8')) : null });
    });
  });
}

describe('schemathesis fuzz of the OpenAPI document', () => {
  let app: TestApp;
  let t: SeededTenant;
  let upstream: FakeUpstream;
  let st: string;
  beforeAll(async () => {
    st = resolveSchemathesis((m) => process.stderr.write(`[fuzz] ${m}\n`));
    upstream = await startFakeUpstream();
    app = await startTestApp({ role: 'api', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    t = await seedTenant(app);
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    await upstream?.close();
  });

  const identities: [string, () => string[]][] = [
    ['jwt', () => [`Authorization: Bearer ${t.admin.token}`, `X-Organization-Id: ${t.orgId}`]],
    ['full_key', () => [`Authorization: Bearer ${t.fullKey}`]],
    ['public_key', () => [`Authorization: Bearer ${t.publicKey}`]],
  ];
  it.each(identities)('finds no 5xx and no contract mismatch as %s', async (label, headers) => {
    const r = await runSchemathesis(st, app, headers(), label);
    process.stderr.write(`[fuzz ${label}] ${r.output.split('\n').filter((l) => /operations|test cases|passed|failed|error/i.test(l)).slice(-6).join('\n')}\n`);
    if (r.code !== 0) throw new Error(`schemathesis as ${label} exited ${r.code}:\n${r.output.slice(-6000)}`);
    expect(r.code).toBe(0);
  }, 600_000);
});
