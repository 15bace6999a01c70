/**
 * Writes the service's OpenAPI document to web/src/api/openapi.json and the dashboard's types of it
 * to web/src/api/schema.d.ts (openapi-typescript, a devDependency of web/), without a server or a
 * database: `npm run web:api`. With `--check` (`npm run web:api:check`, part of `npm test`) it
 * writes both into a temporary folder instead and fails when the committed files differ, so a
 * route change that the dashboard has not picked up is caught before it ships.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config';
import type { AppContext } from '../src/context';
import { limitsFrom } from '../src/ingest/limits';
import { buildOpenApiDocument } from '../src/openapi/document';
import { buildRoutes } from '../src/routes';
import type { Services } from '../src/services';

const ROOT = join(__dirname, '..');
const API_DIR = join(ROOT, 'web', 'src', 'api');
const FILES = ['openapi.json', 'schema.d.ts'] as const;

/**
 * The route list exactly as the server builds it (src/routes.ts). Building it only reads the
 * config and the ingest limits; every other service is an inert stand-in that is never called.
 */
function routes() {
  const config = loadConfig({});
  const inert = (): unknown => new Proxy(() => inert(), { get: (_t, k) => (k === 'then' ? undefined : inert()) });
  const known = <T>(values: Record<string, unknown>) =>
    new Proxy(values, { get: (t, k: string) => (k in t ? t[k] : inert()) }) as T;
  const ctx = known<AppContext>({ config });
  const list = buildRoutes(ctx, known<Services>({ ingest: known({ limits: limitsFrom(config) }) }));
  return { list, version: config.API_VERSION };
}

function generate(dir: string) {
  const { list, version } = routes();
  const json = join(dir, 'openapi.json');
  writeFileSync(json, `${JSON.stringify(buildOpenApiDocument(list, { version }), null, 2)}\n`);
  const bin = join(ROOT, 'web', 'node_modules', '.bin', 'openapi-typescript');
  if (!existsSync(bin)) throw new Error('openapi-typescript is missing: run `npm run web:install` first');
  execFileSync(bin, [json, '--output', join(dir, 'schema.d.ts'), '--alphabetize'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function check() {
  const tmp = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    generate(tmp);
    const stale = FILES.filter(
      (f) =>
        !existsSync(join(API_DIR, f)) || readFileSync(join(API_DIR, f), 'utf8') !== readFileSync(join(tmp, f), 'utf8'),
    );
    if (stale.length) {
      console.error(
        `web/src/api is out of date with the route contracts (${stale.join(', ')} differ): ` +
          'run `npm run web:api` and commit the result.',
      );
      process.exit(1);
    }
    console.log('web/src/api matches the route contracts.');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv.includes('--check')) check();
else {
  generate(API_DIR);
  console.log(`wrote ${FILES.map((f) => `web/src/api/${f}`).join(' and ')}`);
}
