/**
 * The dashboard in a real browser: `npm run bench:dashboard`.
 *
 * A fresh database with BENCH_ROWS (1,000,000) request rows over 30 days and their rollups (the
 * analytics bench's generator), the api serving the built app, Debian's chromium via playwright-core.
 * Measures: the overview's first load (navigation start → KPIs and four charts drawn) cold (empty
 * cache) and warm; the JavaScript of the first page, gzip; scrolling the request log through
 * 10,000 loaded rows (frame times from requestAnimationFrame).
 *
 * The initial JavaScript is what index.html makes the browser fetch before the first page can
 * render: the entry script plus its modulepreloads (route chunks load later, on navigation); the
 * sum of every chunk is printed next to it.
 *
 * Env: BENCH_ROWS (1000000), BENCH_RUNS (5), BENCH_PG_URL; BENCH_JS_ONLY=1 prints the JavaScript
 * sizes and stops (no database, no browser).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin';
import { createDb } from '../src/db/knex';
import { createLogger } from '../src/logger';
import { startRuntime } from '../src/runtime';
import { seedTenant, TEST_JWT_SECRET } from '../test/helpers/auth';
import { findChromium } from '../test/helpers/browser-path';
import { generate } from './analytics-data';

const PG = process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ROOT = path.resolve(__dirname, '..');
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const pct = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

const kb = (bytes: number) => (bytes / 1024).toFixed(0);
const gz = async (file: string) => gzipSync(await readFile(file)).length;

/** Gzip bytes of the entry script plus the modulepreloads index.html names, and of every chunk. */
async function jsSizes() {
  const dist = path.join(ROOT, 'web/dist');
  const html = await readFile(path.join(dist, 'index.html'), 'utf8');
  const tags = [...html.matchAll(/<(script|link)\b[^>]*>/g)].map((m) => m[0]);
  const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]+)"`).exec(tag)?.[1];
  const entry = tags.filter((t) => t.startsWith('<script') && attr(t, 'type') === 'module').map((t) => attr(t, 'src'));
  const preloads = tags
    .filter((t) => t.startsWith('<link') && attr(t, 'rel') === 'modulepreload')
    .map((t) => attr(t, 'href'));
  const files = [...entry, ...preloads].filter((f): f is string => !!f && f.endsWith('.js'));
  if (!entry.length) throw new Error('web/dist/index.html names no module script');
  const initial = (await Promise.all(files.map((f) => gz(path.join(dist, f))))).reduce((a, b) => a + b, 0);
  const assets = path.join(dist, 'assets');
  const all = (
    await Promise.all((await readdir(assets)).filter((f) => f.endsWith('.js')).map((f) => gz(path.join(assets, f))))
  ).reduce((a, b) => a + b, 0);
  return { initial, all, files: files.map((f) => path.basename(f)) };
}

async function main() {
  if (spawnSync('npm', ['run', '-s', 'web:build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0)
    throw new Error('web build failed');
  const { initial, all, files } = await jsSizes();
  if (process.env.BENCH_JS_ONLY) {
    console.log(`initial JavaScript (${files.join(', ')}), gzip: ${kb(initial)} KB; every chunk: ${kb(all)} KB`);
    return;
  }

  const dbName = `gw_bench_dashboard_${randomBytes(4).toString('hex')}`;
  await createDatabase(PG, dbName);
  const databaseUrl = withDatabase(PG, dbName);
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    MASTER_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    WEB_DIR: path.join(ROOT, 'web/dist'),
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
  const browser = await chromium.launch({
    executablePath: findChromium()!,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const t = await seedTenant({ url });
    log(`generating ${ROWS} request rows and their rollups`);
    await generate(db, {
      orgId: t.orgId,
      projectId: t.projectId,
      apiKeyId: t.fullKeyId,
      rows: ROWS,
      spans: 10_000,
      to: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000),
      log,
    });

    const overview = async (page: import('playwright-core').Page, first: boolean) => {
      await page.goto(first ? `${url}/?range=30d#dev_token=${t.admin.token}` : `${url}/?range=30d`);
      await page.waitForSelector('.kpis');
      await page.waitForFunction('document.querySelectorAll(".chart canvas").length === 4');
      return (await page.evaluate('performance.now()')) as number;
    };
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      cold.push(await overview(page, true));
      warm.push(await overview(page, false));
      await ctx.close();
    }

    log('request log: loading 10,000 rows, then scrolling through them');
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await overview(page, true);
    await page.goto(`${url}/requests`);
    await page.waitForSelector('[role=row][data-index]');
    const t0 = Date.now();
    while (
      Number(await page.evaluate('document.querySelector("[role=table]").getAttribute("aria-rowcount")')) < 10_001
    ) {
      await page.evaluate('(() => { const b = document.querySelector(".tbody"); b.scrollTop = b.scrollHeight; })()');
      await page.waitForTimeout(30);
      if (Date.now() - t0 > 120_000) throw new Error('10,000 rows did not load in 2 minutes');
    }
    const loadS = (Date.now() - t0) / 1000;
    const frames = (await page.evaluate(`new Promise((done) => {
      const b = document.querySelector('.tbody'); b.scrollTop = 0;
      const times = []; let last = performance.now();
      const step = (now) => { times.push(now - last); last = now; b.scrollTop += 400;
        if (b.scrollTop + b.clientHeight < b.scrollHeight - 1) requestAnimationFrame(step);
        else done(times.slice(1)); };
      requestAnimationFrame(step);
    })`)) as number[];
    const dom = (await page.evaluate('document.querySelectorAll("[role=row][data-index]").length')) as number;
    await ctx.close();

    const f = (v: number) => v.toFixed(0);
    console.log(
      `\nDashboard with ${ROWS.toLocaleString('en')} request rows (30 days), ${RUNS} runs, chromium headless, ` +
        '2 cores shared with the api and PostgreSQL\n',
    );
    console.log('| measure | value | budget |\n|---|---:|---:|');
    console.log(`| overview first load, cold, p50 / max ms | ${f(pct(cold, 0.5))} / ${f(Math.max(...cold))} | 1,500 |`);
    console.log(`| overview load, warm cache, p50 / max ms | ${f(pct(warm, 0.5))} / ${f(Math.max(...warm))} | |`);
    console.log(`| initial JavaScript (entry + ${files.length - 1} modulepreloads), gzip KB | ${kb(initial)} | 250 |`);
    console.log(`| every JavaScript chunk (route chunks load on navigation), gzip KB | ${kb(all)} | |`);
    console.log(`| request log: 10,000 rows loaded (50 pages) s | ${loadS.toFixed(1)} | |`);
    const scroll = `${frames.length} / ${f(pct(frames, 0.5))} / ${f(pct(frames, 0.95))} / ${f(Math.max(...frames))}`;
    console.log(`| request log scroll: frames / p50 / p95 / max ms | ${scroll} | p95 ≤ 33 |`);
    console.log(`| request log scroll: frames over 50 ms | ${frames.filter((x) => x > 50).length} | |`);
    console.log(`| rows in the DOM at once (virtualised) | ${dom} | |`);
  } finally {
    await browser.close();
    await runtime.stop();
    await db.destroy();
    await dropDatabase(PG, dbName);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
