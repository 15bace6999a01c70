/**
 * Proxy overhead benchmark: `npm run bench:proxy`.
 *
 * A fake OpenAI upstream runs in its own process on loopback. Beside it: a bare Node proxy (http
 * + undici, nothing else: the floor), the gateway as committed at BENCH_BEFORE ("before", default
 * HEAD) and the working tree ("after"), each compiled, `api` role, started with `npm start`'s node
 * flags, full body logging and the journal on, on one fresh PostgreSQL database. The same
 * open-loop fixed-rate load (calls evenly spaced) goes straight to the upstream, then through each, one after the
 * other at each rate, so every build meets the same machine. The table shows the latency each
 * adds at p50/p95/p99 (from every response's exact time), its CPU per call and PostgreSQL's, and
 * its memory. Then streaming time-to-first-byte, a soak at 1,000 req/s with the memory curve,
 * and a check that every proxied call was logged.
 *
 * Env: BENCH_SECONDS (per run, default 10), BENCH_RATES (default 200,500,1000), BENCH_BEFORE
 * (git ref, `none` to skip), BENCH_SOAK_SECONDS (default 600, 0 to skip), BENCH_SOAK_RATE, BENCH_PG_URL,
 * BENCH_SKIP_BUILD=1 (reuse .data/bench-build), BENCH_GATEWAY_NODE_FLAGS (added to "after"),
 * BENCH_SERVE=1 (keep the stack up), BENCH_FLAG_VARIANTS ("name=--flag SETTING=value;…": the
 * working tree again with other node flags or settings), BENCH_PROFILE=1 (CPU profile of each build, top frames
 * printed).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb, migrateLatest } from '../src/db/knex';
import { freePort, waitForPort } from '../src/util/net';
import { cpuOf, startTimeOf } from './proc';
import { profileReport } from './cpu-profile';
import { afterBuild, beforeBuild, type GatewayBuild } from './proxy-builds';
import { reportTable, soak, type Row } from './proxy-report';
import {
  BARE_PROXY_SRC,
  cpuMs,
  heapMb,
  load,
  log,
  ROOT,
  rssMb,
  startChild,
  startGateway,
  startUpstream,
  ttfb,
  type Gateway,
} from './proxy-stack';

const PROFILE_DIR = path.join(ROOT, '.data', 'bench-prof');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATES = (process.env.BENCH_RATES ?? '200,500,1000').split(',').map(Number);
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function flagVariants(after: GatewayBuild): GatewayBuild[] {
  const spec = process.env.BENCH_FLAG_VARIANTS ?? '';
  return spec
    .split(';')
    .filter(Boolean)
    .map((v) => {
      const eq = v.indexOf('=');
      const [name, flags] = eq === -1 ? [v, ''] : [v.slice(0, eq), v.slice(eq + 1)];
      const words = flags.split(' ').filter(Boolean);
      const env = Object.fromEntries(
        words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
      );
      const own = words.filter((w) => w.startsWith('--'));
      return { ...after, label: `after ${name}`, flags: own, env: { ...after.env, ...env } };
    });
}

/** The top frames of each build's profile (written when its process exits). */
function printProfiles(dir: string, builds: GatewayBuild[]): void {
  const lines: string[] = [''];
  for (const b of builds) {
    const d = path.join(dir, b.label.replace(/\W+/g, '-'));
    const file = fs.existsSync(d) ? fs.readdirSync(d).find((f) => f.endsWith('.cpuprofile')) : undefined;
    if (file) lines.push(...profileReport(b.label, path.join(d, file)));
  }
  process.stdout.write(lines.join('\n'));
}

async function main() {
  const before = beforeBuild();
  const after = afterBuild();
  const builds = [...(before ? [before.build] : []), after, ...flagVariants(after)];
  const dbName = `gw_bench_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, dbName);
  const dbUrl = withDatabase(PG, dbName);
  const db = createDb(dbUrl, 2);
  const children: ChildProcess[] = [];
  // PostgreSQL's share: CPU of the bench database's backends (not this script's), each known by
  // pid and start time, so a backend that came or went during a run is counted for its part.
  const pgBackends = async () => {
    const { rows } = await db.raw(`select pid from pg_stat_activity where datname = ? and pid <> pg_backend_pid()`, [
      dbName,
    ]);
    return new Map<string, number>(rows.map((r: { pid: number }) => [`${r.pid}@${startTimeOf(r.pid)}`, cpuOf(r.pid)]));
  };
  const pgCpuMs = async (before: Map<string, number>) => {
    let ms = 0;
    for (const [k, c] of await pgBackends()) ms += (c - (before.get(k) ?? 0)) * 1000;
    return ms;
  };
  try {
    await migrateLatest(db);
    const { url: upstream } = await startUpstream(children);
    const barePort = await freePort();
    const bare = startChild(['-e', BARE_PROXY_SRC, String(barePort), upstream], {}, 'bare proxy');
    children.push(bare);
    await waitForPort('127.0.0.1', barePort, 10_000);
    const bareUrl = `http://127.0.0.1:${barePort}/v1/chat/completions`;
    const gws: { build: GatewayBuild; gw: Gateway; calls: number }[] = [];
    for (const build of builds) {
      const dir = path.join(PROFILE_DIR, build.label.replace(/\W+/g, '-'));
      if (process.env.BENCH_PROFILE) fs.rmSync(dir, { recursive: true, force: true });
      const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
      if (build === after) profile.push(...(process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean));
      const gw = await startGateway(children, dbUrl, upstream, [...build.flags, ...profile], build.main, build.env);
      const flags = build.flags.join(' ') || 'none';
      log(`${build.label} (${build.rev}, flags: ${flags}): rss after start ${rssMb(gw.child.pid!).rss.toFixed(1)} MB`);
      gws.push({ build, gw, calls: 0 });
    }
    if (process.env.BENCH_SERVE) {
      // Keeps the stack up for manual probing (profilers, curl) until Ctrl-C.
      for (const g of gws)
        log(
          `serving ${g.build.label}: ${g.gw.url} key ${g.gw.tenant.fullKey} pid ${g.gw.child.pid}; ` +
            `upstream ${upstream}`,
        );
      await new Promise((r) => process.once('SIGINT', r));
      return;
    }
    const directUrl = `${upstream}/v1/chat/completions`;
    const gwUrl = (g: Gateway) => `${g.url}/proxy/openai/v1/chat/completions`;
    const headers = (g: Gateway) => ({ ...g.auth, 'x-service-log-body': 'full' });

    log('warming up');
    await load(directUrl, 500, 2, {});
    for (const g of gws) {
      const w = await load(gwUrl(g.gw), 500, 3, headers(g.gw));
      g.calls += w.count + w.non2xx;
    }

    const rows: Row[] = [];
    for (const rate of RATES) {
      log(`${rate} req/s: direct`);
      const d = await load(directUrl, rate, SECONDS, {});
      const b0 = cpuMs(bare.pid!);
      const b = await load(bareUrl, rate, SECONDS, {});
      rows.push({
        rate,
        label: 'bare Node proxy',
        direct: d,
        run: b,
        cpu: (cpuMs(bare.pid!) - b0) / Math.max(1, b.count + b.non2xx),
      });
      for (const g of gws) {
        log(`${rate} req/s: ${g.build.label}`);
        const pid = g.gw.child.pid!;
        const pg0 = await pgBackends();
        const c0 = cpuMs(pid);
        const r = await load(gwUrl(g.gw), rate, SECONDS, headers(g.gw));
        const n = Math.max(1, r.count + r.non2xx);
        g.calls += r.count + r.non2xx;
        const mem = await heapMb(g.gw.url);
        rows.push({
          rate,
          label: g.build.label,
          direct: d,
          run: r,
          cpu: (cpuMs(pid) - c0) / n,
          pgCpu: (await pgCpuMs(pg0)) / n,
          rss: rssMb(pid).rss,
          ...mem,
        });
      }
    }

    const TTFB_ROUNDS = 300;
    log(`streaming time-to-first-byte (${TTFB_ROUNDS} sequential calls each, the targets taken in turn)`);
    const [td, tb, ...tg] = await ttfb(
      [
        { url: `${upstream}/v1/chat/completions?stream`, headers: {} },
        { url: `http://127.0.0.1:${barePort}/v1/chat/completions?stream`, headers: {} },
        ...gws.map((g) => ({ url: `${g.gw.url}/proxy/openai/v1/chat/completions?stream`, headers: g.gw.auth })),
      ],
      TTFB_ROUNDS,
    );
    const ttfbLines = [`Streaming TTFB: direct p50 ${td!.p50.toFixed(2)} ms / p99 ${td!.p99.toFixed(2)} ms`];
    const ttfbLine = (name: string, t: { p50: number; p99: number }) =>
      `- ${name}: p50 ${t.p50.toFixed(2)} ms / p99 ${t.p99.toFixed(2)} ms ` +
      `(added p50 ${(t.p50 - td!.p50).toFixed(2)} ms)`;
    ttfbLines.push(ttfbLine('bare Node proxy', tb!));
    gws.forEach((g, i) => {
      g.calls += TTFB_ROUNDS;
      ttfbLines.push(ttfbLine(g.build.label, tg[i]!));
    });

    const soaked = gws.find((g) => g.build === after)!;
    const soakLines =
      SOAK_SECONDS > 0
        ? await soak(soaked.gw, gwUrl(soaked.gw), headers(soaked.gw), SOAK_SECONDS, (n) => (soaked.calls += n))
        : [];

    // Every proxied call must be in the log once the batch writer catches up.
    // Calls that failed or were cut are not counted, so "at least" is the check.
    const expected = gws.reduce((s, g) => s + g.calls, 0);
    const deadline = Date.now() + 30_000;
    let logged = 0;
    for (let last = -1; Date.now() < deadline;) {
      logged = Number((await db('requests').count({ c: '*' }))[0]!.c);
      if (logged >= expected && logged === last) break;
      last = logged;
      await new Promise((r) => setTimeout(r, 300));
    }
    const masked = await db('requests').whereRaw(`request_body like '%benchmarkSecret%'`).count({ c: '*' });
    const loadavg = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const out = [
      '',
      `Proxy overhead, fixed-rate load for ${SECONDS}s per run, full body logging ` +
        '(ms; added = through it − direct at the same percentile)',
      '',
      ...reportTable(rows),
      '',
      ...ttfbLines,
      '',
      ...soakLines,
      `Request log: ${logged} rows for at least ${expected} proxied calls; ` +
        `unmasked key in stored bodies: ${masked[0]!.c}`,
      `Machine load average at the end: ${loadavg} ` +
        `(${os.cpus().length} CPUs; upstream, proxies, PostgreSQL and the load generator share them)`,
      '',
    ].join('\n');
    process.stdout.write(out);
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(
      path.join(ROOT, 'bench/results', `proxy-${new Date().toISOString().replace(/[:.]/g, '-')}.md`),
      out,
    );
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, process.env.BENCH_PROFILE ? 5000 : 500));
    await db.destroy();
    await dropDatabase(PG, dbName).catch(() => undefined);
    before?.cleanup();
    if (process.env.BENCH_PROFILE) printProfiles(PROFILE_DIR, builds);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
