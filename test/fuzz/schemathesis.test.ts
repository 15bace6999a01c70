import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveSchemathesis } from '../../scripts/schemathesis';
import { startTestApp, type TestApp } from '../helpers/app';
import { seedTenant, type SeededTenant } from '../helpers/auth';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';

/**
 * Property-based fuzzing of every documented operation with schemathesis, as a JWT admin, a full
 * key and a public key: any 5xx, any response outside its documented statuses or schema, a response
 * holding a secret sent earlier in the run (st_hooks.py), or a crash fails the run. Bounded
 * (examples per operation, fixed seed) to stay within a few minutes on 2 cores.
 */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 12);
// One worker: hypothesis's lambda-source parsing is not thread-safe on CPython 3.11 (a fuzzer crash, not ours).
// secrets_never_echoed is ours (st_hooks.py): secret-shaped values go into the contract's secret fields,
// and no response of the run may contain one.
const CHECKS =
  'not_a_server_error,status_code_conformance,content_type_conformance,' +
  'response_schema_conformance,secrets_never_echoed';

interface RunResult {
  code: number | null;
  output: string;
  report: Record<string, unknown> | null;
}

function runSchemathesis(
  st: string,
  app: { url: string },
  headers: string[],
  label: string,
  phases = 'examples,coverage,fuzzing',
  maxExamples = MAX_EXAMPLES,
): Promise<RunResult> {
  const dir = mkdtempSync(path.join(tmpdir(), `st-${label}-`));
  const args = [
    'run',
    `${app.url}/api/v1/openapi.json`,
    '--url',
    app.url,
    '--checks',
    CHECKS,
    '--max-examples',
    String(maxExamples),
    '--seed',
    '20261122',
    '--workers',
    '1',
    '--phases',
    phases,
    '--suppress-health-check',
    'all',
    '--request-timeout',
    '10',
    '--no-shrink',
    '--report',
    'json',
    '--report-dir',
    dir,
    '--output-truncate',
    'true',
    '--warnings',
    'off',
    // The proxy forwards whatever it gets to the (fake) upstream: fuzzing it tests the fake, not us.
    '--exclude-path-regex',
    '^/proxy/',
    ...headers.flatMap((h) => ['-H', h]),
  ];
  return new Promise((resolve) => {
    const env = {
      ...process.env,
      NO_COLOR: '1',
      SCHEMATHESIS_HOOKS: 'st_hooks',
      PYTHONPATH: [__dirname, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
    };
    const child = spawn(st, args, { env });
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

  it('the secret check fails a server that echoes a secret it was sent', async () => {
    // One operation taking a secret and echoing it: the run must fail on secrets_never_echoed.
    const doc = {
      openapi: '3.1.0',
      info: { title: 'echo', version: '1' },
      paths: {
        '/keys': {
          put: {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['api_key'],
                    additionalProperties: false,
                    properties: { api_key: { type: 'string', format: 'password', writeOnly: true, minLength: 1 } },
                  },
                },
              },
            },
            responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
          },
        },
      },
    };
    const echo = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(req.url === '/api/v1/openapi.json' ? JSON.stringify(doc) : JSON.stringify({ saved: body }));
      });
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const r = await runSchemathesis(
        st,
        { url: `http://127.0.0.1:${(echo.address() as AddressInfo).port}` },
        [],
        'echo',
      );
      expect(r.code).not.toBe(0);
      expect(r.output).toMatch(/echoes \d+ secret/);
    } finally {
      echo.close();
    }
  }, 120_000);

  // The coverage phase (boundary and negative values of every field, most of the cases) exercises
  // validation, which is the same code whoever calls: it runs once, as the identity that passes
  // auth on every operation. The keys get examples and a third of the fuzzing: every operation,
  // their auth outcome (mostly 401/403 before any validation), which more examples do not change.
  const keyExamples = Math.max(2, Math.ceil(MAX_EXAMPLES / 3));
  const identities: [string, () => string[], string, number][] = [
    [
      'jwt',
      () => [`Authorization: Bearer ${t.admin.token}`, `X-Organization-Id: ${t.orgId}`],
      'examples,coverage,fuzzing',
      MAX_EXAMPLES,
    ],
    ['full_key', () => [`Authorization: Bearer ${t.fullKey}`], 'examples,fuzzing', keyExamples],
    ['public_key', () => [`Authorization: Bearer ${t.publicKey}`], 'examples,fuzzing', keyExamples],
  ];
  it.each(identities)(
    'finds no 5xx and no contract mismatch as %s',
    async (label, headers, phases, examples) => {
      const r = await runSchemathesis(st, app, headers(), label, phases, examples);
      const ops = r.report?.operations as { selected: number; tested: number; errored: number } | undefined;
      const cases = r.report?.test_cases as { generated: number; with_failures: number } | undefined;
      process.stderr.write(
        `[fuzz ${label}] operations ${ops?.tested}/${ops?.selected} tested, ` +
          `${cases?.generated} test cases, ${cases?.with_failures} with failures\n`,
      );
      if (r.code !== 0) {
        // Long generated values make the report unreadable: keep the start of each line.
        const failures = r.output
          .slice(Math.max(0, r.output.indexOf('FAILURES')))
          .split('\n')
          .map((l) => l.slice(0, 240));
        throw new Error(`schemathesis as ${label} exited ${r.code}:\n${failures.join('\n').slice(0, 20_000)}`);
      }
      expect(r.code).toBe(0);
      // Every documented operation (but the excluded proxy) was exercised, with no fuzzer error.
      expect(ops!.selected).toBeGreaterThan(50);
      expect(ops!.tested).toBe(ops!.selected);
      expect(ops!.errored).toBe(0);
      expect(cases!.generated).toBeGreaterThanOrEqual(ops!.selected * Math.min(examples, 5));
    },
    600_000,
  );
});
