/**
 * Export throughput and memory: `npm run bench:exports`.
 *
 * A fresh database with BENCH_ROWS (1,000,000) request rows; the api and the workflow worker in
 * this process; the export activities in a worker process of their own (ROLE=exports, the way a
 * deployment scales them, compiled), whose peak RSS (VmHWM) is read from /proc after each export. One
 * export per format, timed from POST /exports to `completed`, side by side in one table.
 *
 * Env: BENCH_ROWS (1000000), BENCH_FORMATS (csv,jsonl,parquet), BENCH_NODE_OPTIONS (`;`-separated
 * NODE_OPTIONS of the export worker, default: none, and the heap limits of docs/exports.md), BENCH_PG_URL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb, migrateLatest } from '../src/db/knex';
import { createLogger } from '../src/logger';
import { startRuntime } from '../src/runtime';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/util/net';
import { api, seedTenant } from '../test/helpers/auth';

const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const FORMATS = (process.env.BENCH_FORMATS ?? 'csv,jsonl,parquet').split(',');
/** Node's defaults, and the heap limits docs/exports.md recommends for export workers. */
const VARIANTS: [string, string][] = (
  process.env.BENCH_NODE_OPTIONS ?? ';--max-semi-space-size=4 --max-old-space-size=96'
)
  .split(';')
  .map((o) => [o || 'default', o]);
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const mb = (kb: number) => (kb / 1024).toFixed(0);

/** Peak and current RSS of a process, in kB (Linux /proc). */
async function rss(pid: number) {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { peak: kb('VmHWM'), now: kb('VmRSS') };
}

/** The production entry, compiled (`npm run build`), as `node dist/src/main.js exports`. */
function startExportWorker(env: Record<string, string>): Promise<ChildProcess> {
  const root = path.resolve(__dirname, '..');
  const p = spawn(process.execPath, [path.join(root, 'dist/src/main.js'), 'exports'], {
    cwd: root,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    p.stdout!.on('data', (b: Buffer) => b.toString().includes('export worker running') && resolve(p));
    p.once('exit', (code) => reject(new Error(`export worker exited (${code})`)));
  });
}

async function main() {
  log('building dist/ (the export worker runs compiled, as in production)');
  if (spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit', cwd: path.resolve(__dirname, '..') }).status !== 0)
    throw new Error('build failed');
  const dbName = `gw_bench_exports_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, dbName);
  const dbUrl = withDatabase(PG, dbName);
  const admin = createDb(dbUrl, 2);
  await migrateLatest(admin);
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-exports-'));
  const temporal = await startDevServer({ port: await freePort(), log });
  const env = {
    LOG_LEVEL: 'warn',
    DATABASE_URL: dbUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'bench-exports',
    MASTER_KEY: randomBytes(32).toString('hex'),
    AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
    HOST: '127.0.0.1',
    EXPORT_DIR: dir,
  };
  const config = loadConfig({ ...process.env, ...env, EXPORT_WORKER: 'false' });
  const runtime = await startRuntime(config, {
    role: 'all',
    databaseUrl: dbUrl,
    logger: createLogger('warn'),
    port: 0,
  });
  let worker: ChildProcess | undefined;
  try {
    const app = { url: runtime.api!.url };
    const t = await seedTenant(app);
    log(`seeding ${ROWS} request rows`);
    // generate_series: a million rows in seconds (the proxy's writer would take minutes).
    await admin.raw(
      `insert into requests (id, org_id, project_id, provider, model, method, path,
                             prompt_tokens, completion_tokens, total_tokens, cost_usd, latency_ms, status_code,
                             user_id, log_mode, created_at, properties)
       select gen_random_uuid(), ?, ?, 'openai', case when i % 2 = 0 then 'gpt-4o-mini' else 'gpt-4o' end,
              'POST', '/v1/chat/completions', 100 + i % 50, 20 + i % 30, 120 + i % 80,
              (i % 1000) * 0.000001, 200 + i % 900, 200, 'user-' || (i % 5000), 'meta',
              now() - make_interval(secs => i), case when i % 4 = 0 then jsonb_build_object('team', 'a,"b"') end
         from generate_series(1, ?) i`,
      [t.orgId, t.projectId, ROWS],
    );
    await admin.raw('analyze requests');
    const results: Record<string, string | number>[] = [];
    // A fresh export worker per run: VmHWM is the process's high-water mark.
    for (const [label, nodeOptions] of VARIANTS) {
      for (const format of FORMATS) {
        worker = await startExportWorker({ ...env, NODE_OPTIONS: nodeOptions });
        const idle = await rss(worker.pid!);
        const t0 = Date.now();
        const r = await api(app, 'POST', '/api/v1/exports', {
          token: t.viewer.token,
          orgId: t.orgId,
          body: { resource: 'requests', format },
        });
        let e = r.body.data;
        while (['pending', 'running'].includes(e.status)) {
          await new Promise((res) => setTimeout(res, 500));
          e = (await api(app, 'GET', `/api/v1/exports/${e.id}`, { token: t.viewer.token, orgId: t.orgId })).body.data;
        }
        const s = (Date.now() - t0) / 1000;
        const m = await rss(worker.pid!);
        worker.kill('SIGKILL');
        worker = undefined;
        if (e.status !== 'completed' || e.rows_written !== ROWS)
          throw new Error(`export ${format} ended ${e.status} with ${e.rows_written} rows: ${e.error}`);
        results.push({
          'node options': label,
          format,
          seconds: s.toFixed(1),
          'rows/s': Math.round(ROWS / s),
          'file MB': (e.bytes / 1e6).toFixed(1),
          'idle RSS MB': mb(idle.now),
          'peak RSS MB': mb(m.peak),
        });
        log(`${label} ${format}: ${s.toFixed(1)} s, peak ${mb(m.peak)} MB`);
      }
    }
    console.log(
      `\nExport of ${ROWS.toLocaleString('en')} request rows by a ROLE=exports worker process (compiled), ` +
        'one export per fresh process\n',
    );
    console.table(results);
  } finally {
    if (worker) worker.kill('SIGKILL');
    await runtime.stop();
    await admin.destroy();
    await temporal.stop();
    await dropDatabase(PG, dbName);
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
