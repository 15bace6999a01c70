import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, seedTenant } from '../../helpers/auth';
import { startApiChild, type ApiChild } from '../../helpers/api-child';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';

/**
 * An api replica that serves proxied calls and the request log never loads what only other
 * requests need: the Temporal SDK, the evaluators' JSON Schema and JSONPath libraries, CSV,
 * Parquet, statistics. Each is memory (heap, code) held for the process's life (docs/proxy.md).
 */
const LAZY = [
  '@temporalio/client',
  '@temporalio/common',
  '@temporalio/proto',
  'ajv',
  'jsonpath-plus',
  'csv-parse',
  'csv-stringify',
  '@dsnp/parquetjs',
  'simple-statistics',
  'jstat',
  'otlp-proto-root',
];

describe('api: modules loaded on first use', () => {
  let db: TestDatabase;
  let upstream: FakeUpstream;
  let app: ApiChild | undefined;
  const file = path.join(os.tmpdir(), `loaded-modules-${randomBytes(4).toString('hex')}.json`);
  afterAll(async () => {
    if (app && app.child.exitCode === null) app.child.kill('SIGKILL');
    await upstream?.close();
    await db?.drop().catch(() => undefined);
    rmSync(file, { force: true });
  });

  it('proxying and reading the request log load none of them', async () => {
    db = await freshDatabase();
    upstream = await startFakeUpstream();
    app = await startApiChild({
      DATABASE_URL: db.url,
      MASTER_KEY: randomBytes(32).toString('hex'),
      PROVIDER_OPENAI_BASE_URL: upstream.url,
      NODE_OPTIONS: `--require ${path.resolve(__dirname, '../../helpers/loaded-modules.js')}`,
      LOADED_MODULES_FILE: file,
    });
    const { url } = app;
    const t = await seedTenant({ url });
    const asAdmin = { token: t.admin.token, orgId: t.orgId };
    const key = await api({ url }, 'PUT', '/api/v1/provider-keys', {
      ...asAdmin,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-upstream' },
    });
    expect(key.status).toBeLessThan(300);
    const res = await fetch(`${url}/proxy/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const log = await api({ url }, 'GET', `/api/v1/requests?project_id=${t.projectId}`, asAdmin);
    expect(log.status).toBe(200);

    app.child.kill('SIGTERM');
    await app.exited;
    const loaded = JSON.parse(readFileSync(file, 'utf8')) as string[];
    const pkg = (name: string) => loaded.filter((f) => f.includes(`/node_modules/${name}/`));
    // The list is real: what the proxy path needs is in it.
    expect(pkg('undici').length).toBeGreaterThan(0);
    expect(pkg('pg').length).toBeGreaterThan(0);
    expect(Object.fromEntries(LAZY.map((name) => [name, pkg(name).length]))).toEqual(
      Object.fromEntries(LAZY.map((name) => [name, 0])),
    );
  });
});
