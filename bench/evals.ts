/**
 * Eval run throughput: `npm run bench:evals`.
 *
 * The service (api + worker) on a Temporal dev server and a fresh database; a fake judge provider
 * in its own process answers every call after BENCH_JUDGE_MS (200 ms). Eval runs over the same
 * BENCH_TARGETS requests at several concurrencies, timed from POST /eval-runs to `completed`: a
 * judge run is bound by concurrency / judge latency; a local evaluator (contains) by the worker.
 *
 * Env: BENCH_TARGETS (400), BENCH_JUDGE_MS (200), BENCH_CONCURRENCY (4,16,32), BENCH_PG_URL.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb, migrateLatest } from '../src/db/knex';
import { createLogger } from '../src/logger';
import { insertRequestRows } from '../src/requests/writer';
import { startRuntime } from '../src/runtime';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort, waitForPort } from '../src/util/net';
import { api, seedTenant } from '../test/helpers/auth';
import { requestRow } from '../test/integration/analytics/seed';

const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TARGETS = Number(process.env.BENCH_TARGETS ?? 400);
const JUDGE_MS = Number(process.env.BENCH_JUDGE_MS ?? 200);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '4,16,32').split(',').map(Number);
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

const JUDGE_SRC = `
const http = require('node:http');
const [port, delay] = [Number(process.argv[1]), Number(process.argv[2])];
const body = JSON.stringify({ id: 'j', object: 'chat.completion', model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: '{"score": 0.8, "reasoning": "fine"}' },
    finish_reason: 'stop' }],
  usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 } });
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  }, delay));
}).listen(port, '127.0.0.1');
`;

async function main() {
  const dbName = `gw_bench_evals_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, dbName);
  const dbUrl = withDatabase(PG, dbName);
  const admin = createDb(dbUrl, 2);
  await migrateLatest(admin);
  await admin.destroy();
  const temporal = await startDevServer({ port: await freePort(), log });
  const judgePort = await freePort();
  const judge = spawn(process.execPath, ['-e', JUDGE_SRC, String(judgePort), String(JUDGE_MS)], { stdio: 'inherit' });
  await waitForPort('127.0.0.1', judgePort, 10_000);
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: dbUrl,
    DATABASE_POOL_MAX: '20',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'bench-evals',
    MASTER_KEY: randomBytes(32).toString('hex'),
    AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
    HOST: '127.0.0.1',
    PROVIDER_OPENAI_BASE_URL: `http://127.0.0.1:${judgePort}`,
  });
  const runtime = await startRuntime(config, {
    role: 'all',
    databaseUrl: dbUrl,
    logger: createLogger('warn'),
    port: 0,
  });
  try {
    const app = { url: runtime.api!.url };
    const t = await seedTenant(app);
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-bench-judge-0000' },
    });
    const now = Date.now();
    const rows = Array.from({ length: TARGETS }, (_, i) =>
      requestRow(
        { orgId: t.orgId, projectId: t.projectId },
        {
          id: randomUUID(),
          created_at: new Date(now - i * 1000).toISOString(),
          log_mode: 'full',
          request_body: JSON.stringify({ messages: [{ role: 'user', content: `question ${i}` }] }),
          response_body: JSON.stringify({ choices: [{ message: { content: `answer ${i}` } }] }),
        },
      ),
    );
    await runtime.ctx.db.transaction((trx) =>
      insertRequestRows(
        trx,
        rows.map((row) => ({ row })),
      ),
    );
    const evaluator = async (body: Record<string, unknown>) =>
      (await api(app, 'POST', '/api/v1/evaluators', { token: t.fullKey, body })).body.data.id as string;
    const judgeId = await evaluator({
      name: 'judge',
      type: 'llm_judge',
      config: {
        provider: 'openai',
        model: 'gpt-4o-mini',
        template: 'Q: {{input}} A: {{output}}',
        output: { type: 'numeric', min: 0, max: 1 },
      },
    });
    const containsId = await evaluator({ name: 'contains', type: 'contains', config: { value: 'answer' } });
    const range = { from: new Date(now - 3_600_000 * 2).toISOString(), to: new Date(now + 60_000).toISOString() };
    const time = async (evaluatorId: string, concurrency: number) => {
      const t0 = performance.now();
      const r = await api(app, 'POST', '/api/v1/eval-runs', {
        token: t.fullKey,
        body: { evaluator_ids: [evaluatorId], target: { kind: 'requests', ...range, limit: TARGETS }, concurrency },
      });
      const id = r.body.data.id as string;
      for (;;) {
        const s = (await api(app, 'GET', `/api/v1/eval-runs/${id}`, { token: t.fullKey })).body.data;
        if (s.status === 'completed')
          return {
            seconds: (performance.now() - t0) / 1000,
            completed: s.counts.completed as number,
            errors: s.counts.error as number,
          };
        await new Promise((res) => setTimeout(res, 100));
      }
    };
    await time(containsId, 8); // warm-up: workflow bundle, connections
    const table = [
      '| evaluator | concurrency | items | errors | seconds | items/s | bound (concurrency / judge latency) |',
      '|---|---:|---:|---:|---:|---:|---:|',
    ];
    for (const c of CONCURRENCY) {
      const r = await time(judgeId, c);
      const rate = (r.completed / r.seconds).toFixed(1);
      const bound = (c / (JUDGE_MS / 1000)).toFixed(0);
      table.push(
        `| llm_judge (${JUDGE_MS} ms) | ${c} | ${r.completed} | ${r.errors} | ${r.seconds.toFixed(1)} | ` +
          `${rate} | ${bound} |`,
      );
      log(table.at(-1)!);
    }
    const local = await time(containsId, 16);
    const localRate = (local.completed / local.seconds).toFixed(1);
    table.push(
      `| contains (no model call) | 16 | ${local.completed} | ${local.errors} | ` +
        `${local.seconds.toFixed(1)} | ${localRate} | |`,
    );
    console.log(
      `\nEval runs over ${TARGETS} requests, each from POST /eval-runs to completed ` +
        `(Temporal dev server, one worker, 2 cores)\n\n${table.join('\n')}\n`,
    );
  } finally {
    await runtime.stop();
    judge.kill('SIGTERM');
    await temporal.stop();
    await dropDatabase(PG, dbName).catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
