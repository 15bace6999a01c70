/**
 * Proxy overhead benchmark: `npm run bench:proxy`.
 *
 * A fake OpenAI upstream runs in its own process on loopback; the gateway (compiled, `api`
 * role, full body logging, request log written to a fresh PostgreSQL database) runs in another.
 * The same fixed-rate load (autocannon) goes straight to the upstream and then through the
 * gateway at 500, 1,000 and 2,000 req/s; the table shows the latency the gateway adds at p50,
 * p95 and p99 (from every response's exact time), the throughput achieved, and the gateway's
 * RSS. Then time-to-first-byte of a streamed answer, direct vs through the gateway, and a check
 * that every proxied call was logged.
 *
 * Env: BENCH_SECONDS (per run, default 10), BENCH_RATES (default 500,1000,2000),
 * BENCH_PG_URL (default the local server), BENCH_SKIP_BUILD=1 to reuse .data/bench-build,
 * BENCH_GATEWAY_NODE_FLAGS (e.g. "--max-semi-space-size=4"), BENCH_PROFILE=1 (CPU profile of the gateway).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb, migrateLatest } from '../src/db/knex';
import { freePort, waitForPort } from '../src/util/net';
import { BARE_PROXY_SRC, buildGateway, cpuMs, load, log, ROOT, rssMb, startChild, startGateway, startUpstream, ttfb } from './proxy-stack';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATES = (process.env.BENCH_RATES ?? '500,1000,2000').split(',').map(Number);
const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main() {
  buildGateway();
  const dbName = `gw_bench_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, dbName);
  const dbUrl = withDatabase(PG, dbName);
  const db = createDb(dbUrl, 2);
  const children: ChildProcess[] = [];
  try {
    await migrateLatest(db);
    const { url: upstream, child: up } = await startUpstream(children);
    const barePort = await freePort();
    const bare = startChild(['-e', BARE_PROXY_SRC, String(barePort), upstream], {}, 'bare proxy');
    children.push(bare);
    await waitForPort('127.0.0.1', barePort, 10_000);
    const bareUrl = `http://127.0.0.1:${barePort}/v1/chat/completions`;

    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, '.data', 'bench-prof')}`] : [];
    const nodeFlags = (process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const { url: gateway, child: gw, tenant, auth } = await startGateway(children, dbUrl, upstream, [...profile, ...nodeFlags]);
    const directUrl = `${upstream}/v1/chat/completions`;
    const gwUrl = `${gateway}/proxy/openai/v1/chat/completions`;

    if (process.env.BENCH_SERVE) {
      // Keep the stack up for manual probing (profilers, curl) until Ctrl-C.
      log(`serving: gateway ${gwUrl} key ${tenant.fullKey} direct ${directUrl} gateway pid ${gw.pid}`);
      await new Promise((r) => process.once('SIGINT', r));
      return;
    }
    log(`rss after start: ${rssMb(gw.pid!).rss.toFixed(1)} MB; warming up`);
    await load(directUrl, 500, 2, {});
    const warm = await load(gwUrl, 500, 3, { ...auth, 'x-service-log-body': 'full' });

    const rows: string[] = [];
    const floorRows: string[] = [];
    let proxied = 0;
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(gw.pid!).rss)), 200);
    for (const rate of RATES) {
      log(`${rate} req/s: direct`);
      const up0 = cpuMs(up.pid!);
      const d = await load(directUrl, rate, SECONDS, {});
      const upCpuPerReq = (cpuMs(up.pid!) - up0) / Math.max(1, d.count + d.non2xx);
      log(`${rate} req/s: bare undici proxy (floor)`);
      const b0 = cpuMs(bare.pid!);
      const b = await load(bareUrl, rate, SECONDS, {});
      const bareCpuPerReq = (cpuMs(bare.pid!) - b0) / Math.max(1, b.count + b.non2xx);
      log(`${rate} req/s: through the gateway`);
      const cpu0 = cpuMs(gw.pid!);
      const g = await load(gwUrl, rate, SECONDS, { ...auth, 'x-service-log-body': 'full' });
      const cpuPerReq = (cpuMs(gw.pid!) - cpu0) / Math.max(1, g.count + g.non2xx);
      proxied += g.count + g.non2xx;
      const rss = rssMb(gw.pid!).rss;
      const f = (x: number) => x.toFixed(2).padStart(7);
      rows.push(
        `| ${String(rate).padStart(5)} | ${f(d.p50)} | ${f(g.p50)} | ${f(g.p50 - d.p50)} | ${f(g.p95 - d.p95)} | ${f(g.p99 - d.p99)} | ${d.rps.toFixed(0).padStart(6)} | ${g.rps.toFixed(0).padStart(6)} | ${String(g.non2xx + g.errors).padStart(6)} | ${upCpuPerReq.toFixed(2).padStart(6)} | ${cpuPerReq.toFixed(2).padStart(6)} | ${rss.toFixed(0).padStart(7)} |`,
      );
      floorRows.push(
        `| ${String(rate).padStart(5)} | ${f(b.p50 - d.p50)} | ${f(b.p95 - d.p95)} | ${f(b.p99 - d.p99)} | ${b.rps.toFixed(0).padStart(6)} | ${bareCpuPerReq.toFixed(2).padStart(6)} |`,
      );
      log(rows[rows.length - 1]!);
    }
    clearInterval(sampler);

    log('streaming time-to-first-byte (200 sequential calls each)');
    const td = await ttfb(`${upstream}/v1/chat/completions?stream`, {}, 200);
    const tg = await ttfb(`${gateway}/proxy/openai/v1/chat/completions?stream`, auth, 200);
    proxied += 200;

    // Every proxied call must be in the log once the batch writer catches up.
    // autocannon may stop with calls in flight (proxied, not counted), so "at least" is the check.
    const expected = proxied + warm.count + warm.non2xx;
    const deadline = Date.now() + 30_000;
    let logged = 0;
    for (let last = -1; Date.now() < deadline; ) {
      logged = Number((await db('requests').count({ c: '*' }))[0]!.c);
      if (logged >= expected && logged === last) break;
      last = logged;
      await new Promise((r) => setTimeout(r, 300));
    }
    const inside = (
      await db.raw(
        `select percentile_cont(0.5) within group (order by latency_ms) as p50, percentile_cont(0.99) within group (order by latency_ms) as p99,
                percentile_cont(0.5) within group (order by ttfb_ms) as ttfb50 from requests where not streamed`,
      )
    ).rows[0];
    const masked = await db('requests').whereRaw(`request_body like '%benchmarkSecret%'`).count({ c: '*' });
    const hwm = rssMb(gw.pid!).hwm;

    const out = [
      '',
      `Proxy overhead, fixed-rate load for ${SECONDS}s per run, full body logging (ms; added = gateway - direct at the same percentile)`,
      '',
      '|  rate | direct p50 | gw p50 | added p50 | added p95 | added p99 | direct rps | gw rps | errors | upstream CPU ms/req | gw CPU ms/req | gw RSS MB |',
      '|------:|-------:|-------:|--------:|--------:|--------:|-------:|-------:|-------:|------:|------:|--------:|',
      ...rows,
      '',
      'Reference floor on this machine: a bare Node proxy (http server + undici, no framework, auth, logging) under the same load',
      '',
      '|  rate | added p50 | added p95 | added p99 | rps | CPU ms/req |',
      '|------:|--------:|--------:|--------:|-------:|------:|',
      ...floorRows,
      '',
      `Streaming TTFB: direct p50 ${td.p50.toFixed(2)} ms / p99 ${td.p99.toFixed(2)} ms; via gateway p50 ${tg.p50.toFixed(2)} ms / p99 ${tg.p99.toFixed(2)} ms (added p50 ${(tg.p50 - td.p50).toFixed(2)} ms)`,
      `Inside the gateway (handler start to last byte, whole ms, all runs): p50 ${inside.p50} ms, p99 ${inside.p99} ms; to upstream headers p50 ${inside.ttfb50} ms`,
      `Gateway RSS: peak sampled ${peakRss.toFixed(0)} MB, high-water mark ${hwm.toFixed(0)} MB`,
      `Request log: ${logged} rows for at least ${expected} proxied calls; unmasked key in stored bodies: ${masked[0]!.c}`,
      `Machine load average during the run: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (${os.cpus().length} CPUs; upstream, gateway, PostgreSQL and the load generator share them)`,
      '',
    ].join('\n');
    process.stdout.write(out);
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'bench/results', `proxy-${new Date().toISOString().replace(/[:.]/g, '-')}.md`), out);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, process.env.BENCH_PROFILE ? 5000 : 500));
    await db.destroy();
    await dropDatabase(PG, dbName).catch(() => undefined);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
