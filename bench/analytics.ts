/**
 * Analytics at scale: `npm run bench:analytics`.
 *
 * Generates 10 million request rows over 30 days plus 1 million spans (bench/analytics-data.ts)
 * in a database kept between runs (BENCH_REUSE=1 skips the generation when it is there), starts
 * the api on it and times the dashboard's questions through HTTP, each through the rollups
 * (`source=auto`) and the raw rows (`source=raw`) side by side. Then the request-log writer's
 * throughput with and without rollup maintenance, alternating rounds in the same database.
 *
 * Env: BENCH_ROWS (10000000), BENCH_SPANS (1000000), BENCH_RUNS (15), BENCH_RAW_RUNS (3),
 * BENCH_REUSE (1 keeps the database), BENCH_PG_URL, BENCH_ONLY (a regular expression: only the matching
 * questions; `jobs` and `writer` name the last two tables).
 */
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config';
import { createDatabase, withDatabase } from '../src/db/admin';
import { createDb } from '../src/db/knex';
import { createLogger } from '../src/logger';
import { refreshPropertyRollups } from '../src/analytics/property-rollups';
import { createPgAnalytics } from '../src/analytics/store';
import { detectAnomalies } from '../src/anomalies/detect';
import { recomputeAll } from '../src/recommendations/service';
import { startRuntime } from '../src/runtime';
import { mintJwt, seedTenant, TEST_JWT_SECRET, type SeededTenant } from '../test/helpers/auth';
import { generate } from './analytics-data';
import { writerThroughput } from './analytics-writer';

const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const SPANS = Number(process.env.BENCH_SPANS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const RAW_RUNS = Number(process.env.BENCH_RAW_RUNS ?? 3);
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const HOUR = 3_600_000;

interface Meta {
  tenant: SeededTenant;
  to: string;
  rows: number;
}

async function main() {
  const dbName = `gw_bench_analytics_${ROWS}`;
  await createDatabase(PG, dbName).catch(() => undefined); // kept between runs
  const databaseUrl = withDatabase(PG, dbName);
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    MASTER_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATABASE_POOL_MAX: '4',
  });
  const runtime = await startRuntime(config, {
    role: 'api',
    databaseUrl,
    migrate: true,
    port: 0,
    logger: createLogger('warn'),
  });
  const url = runtime.api!.url;
  const db = createDb(databaseUrl, 2);
  try {
    await db.raw('create table if not exists bench_meta (v jsonb)');
    let meta = ((await db.raw('select v from bench_meta')).rows[0]?.v as Meta | undefined) ?? undefined;
    if (!meta || process.env.BENCH_REUSE !== '1') {
      if (meta)
        await db.raw(
          'truncate requests, request_rollups, rollup_pending, end_users, end_user_sessions, traces, spans, ' +
            'span_rollups, span_rollup_pending, bench_meta, property_rollup_keys',
        );
      const tenant = await seedTenant({ url });
      const to = new Date(Math.floor(Date.now() / HOUR) * HOUR);
      const t0 = Date.now();
      await generate(db, {
        orgId: tenant.orgId,
        projectId: tenant.projectId,
        apiKeyId: tenant.fullKeyId,
        rows: ROWS,
        spans: SPANS,
        to,
        log,
      });
      log(`generated in ${((Date.now() - t0) / 60_000).toFixed(1)} min`);
      meta = { tenant, to: to.toISOString(), rows: ROWS };
      await db.raw('insert into bench_meta values (?)', [JSON.stringify(meta)]);
    } else log(`reusing ${dbName} (${meta.rows} rows up to ${meta.to})`);

    const t = meta.tenant;
    const to = Date.parse(meta.to);
    // What the hourly analytics-property-keys job does, at the data set's last hour (a no-op once done).
    const t1 = Date.now();
    const keys = await refreshPropertyRollups(db, to);
    const registered = keys.registered.map((k) => k.names.join(', ')).join('; ');
    if (keys.registered.length)
      log(`property rollups: registered ${registered} in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    const iso = (ms: number) => new Date(ms).toISOString();
    const d30 = `from=${iso(to - 30 * 24 * HOUR)}&to=${iso(to)}`;
    const d24 = `from=${iso(to - 24 * HOUR)}&to=${iso(to)}`;
    const d20 = `from=${iso(to - 20 * HOUR)}&to=${iso(to)}`;
    const cases: [string, string, number | null][] = [
      ['stats 30 d hourly, all measures', `/api/v1/stats?${d30}&granularity=hour`, 300],
      ['stats 30 d hourly, group by user top 10', `/api/v1/stats?${d30}&granularity=hour&group_by=user&top=10`, 500],
      ['stats 30 d daily, group by model', `/api/v1/stats?${d30}&granularity=day&group_by=model`, null],
      ['stats 30 d auto, filter model', `/api/v1/stats?${d30}&model=gpt-4o`, null],
      ['stats 24 h, custom-property filter', `/api/v1/stats?${d24}&property=feature:feature-3`, 500],
      // auto gives hours over a day or more: the property rollups answer.
      ['stats 24 h, group by custom property', `/api/v1/stats?${d24}&group_by=property:tier`, 500],
      // Under a day auto may give 30-minute buckets, which hourly rollups cannot fill: raw rows, ranked by the rollups.
      ['stats 20 h, group by custom property (30-min buckets)', `/api/v1/stats?${d20}&group_by=property:tier`, null],
      [
        'stats 30 d daily, group by custom property',
        `/api/v1/stats?${d30}&granularity=day&group_by=property:feature`,
        null,
      ],
      ['users first page by cost', '/api/v1/users?sort=cost_usd', 200],
      ['users page by error rate', '/api/v1/users?sort=error_rate', null],
      ['user detail (30 d series)', '/api/v1/users/user-1', 100],
      ['stats spans view 30 d, by span type', `/api/v1/stats?${d30}&view=spans&group_by=span_type`, 300],
    ];
    // A fresh token each run: the stored tenant's own expires after an hour.
    const token = mintJwt({ sub: t.admin.sub });
    const time = async (path: string, runs: number) => {
      const ms: number[] = [];
      let source = '';
      for (let i = 0; i <= runs; i++) {
        const t0 = performance.now();
        const r = await fetch(`${url}${path}`, {
          headers: { authorization: `Bearer ${token}`, 'x-organization-id': t.orgId },
        });
        const body = (await r.json()) as { data: { source?: string } };
        if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
        source = body.data?.source ?? 'table';
        if (i > 0) ms.push(performance.now() - t0); // the first run warms caches and is not counted
      }
      ms.sort((a, b) => a - b);
      const p = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
      return { source, p50: p(0.5), p95: p(0.95) };
    };
    const table: string[] = [
      '| query | target p95 | source | p50 ms | p95 ms | raw rows p50 ms | raw rows p95 ms |',
      '|---|---:|---|---:|---:|---:|---:|',
    ];
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
    for (const [label, path, target] of cases.filter(([l]) => !only || only.test(l))) {
      const auto = await time(path, RUNS);
      const raw =
        RAW_RUNS > 0 && path.includes('/stats') && auto.source === 'rollup'
          ? await time(`${path}&source=raw`, RAW_RUNS)
          : null;
      const f = (v: number) => v.toFixed(0);
      const rawCells = `${raw ? f(raw.p50) : ''} | ${raw ? f(raw.p95) : ''}`;
      table.push(`| ${label} | ${target ?? ''} | ${auto.source} | ${f(auto.p50)} | ${f(auto.p95)} | ${rawCells} |`);
      log(table[table.length - 1]!);
    }
    const jobs = only && !only.test('jobs') ? '(skipped: BENCH_ONLY)' : await scheduledJobs(db, to);
    const writer =
      only && !only.test('writer') ? '(skipped: BENCH_ONLY)' : await writerThroughput(createDb(databaseUrl, 2), t);
    console.log(
      `\n${meta.rows.toLocaleString('en')} request rows, ${SPANS.toLocaleString('en')} spans; ` +
        `${RUNS} timed runs (raw rows: ${RAW_RUNS})\n`,
    );
    console.log(table.join('\n'));
    console.log(
      "\nOne run of each scheduled job over the whole data set (the activity's work, without Temporal):\n\n" +
        `| job | ms (runs) |\n|---|---|\n${jobs}`,
    );
    console.log(
      '\nRequest-log writer (batches of 500 rows, one transaction each):\n\n' +
        `| rollups | rows/s (rounds) | mean | vs without |\n|---|---|---:|---:|\n${writer}`,
    );
  } finally {
    await db.destroy();
    await runtime.stop();
  }
}

/** Duration of the anomaly detector's and the recommendations' runs at the data set's last hour. */
async function scheduledJobs(db: ReturnType<typeof createDb>, to: number): Promise<string> {
  const analytics = createPgAnalytics(db);
  const jobs: [string, () => Promise<unknown>][] = [
    ['anomaly-detection (every 5 min)', () => detectAnomalies({ db, analytics }, to)],
    ['recommendations (hourly)', () => recomputeAll(db, analytics, to)],
  ];
  const out: string[] = [];
  for (const [name, run] of jobs) {
    const ms: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await run();
      ms.push(performance.now() - t0);
    }
    out.push(`| ${name} | ${ms.map((v) => v.toFixed(0)).join(' / ')} |`);
    log(out.at(-1)!);
  }
  return out.join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
