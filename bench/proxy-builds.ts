/**
 * The gateway builds `bench:proxy` compares in one run: the committed code of BENCH_BEFORE (a git
 * ref, default HEAD; `none` to skip) compiled from a temporary worktree, and the working tree,
 * started the way production starts it (the node flags of `npm start`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD, log, ROOT } from './proxy-stack';

export interface GatewayBuild {
  label: string;
  rev: string;
  /** The compiled `src/main.js`. */
  main: string;
  flags: string[];
  /** Settings for this run (BENCH_FLAG_VARIANTS may give some, e.g. PROXY_LOG_FLUSH_MS=20). */
  env?: Record<string, string>;
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const tsc = (project: string, outDir: string) =>
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project, '--outDir', outDir],
    {
      cwd: path.dirname(project),
      stdio: 'inherit',
    },
  );

/** The node flags `npm start` passes (package.json), so the bench runs what production runs. */
export function productionFlags(root: string = ROOT): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  // `NODE_OPTIONS="${NODE_OPTIONS:---flag=value}" node …`: the default flags, or flags given to node.
  return [...pkg.scripts.start!.matchAll(/--([a-z][a-z-]*=[^\s"}]+)/g)].map((m) => `--${m[1]}`);
}

/** The environment `npm start` sets by default (`NAME=${NAME:-value}`), e.g. MALLOC_ARENA_MAX. */
export function productionEnv(root: string = ROOT): Record<string, string> {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const found = [...pkg.scripts.start!.matchAll(/\b([A-Z_]+)=\$\{\1:-([^}"]+)\}/g)].filter(
    (m) => m[1] !== 'NODE_OPTIONS',
  );
  return Object.fromEntries(found.map((m) => [m[1]!, m[2]!]));
}

/** Compiles the working tree (BENCH_SKIP_BUILD=1 reuses the last build). */
export function afterBuild(): GatewayBuild {
  const head = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--', 'src', 'package.json').length > 0;
  if (!process.env.BENCH_SKIP_BUILD) {
    log('compiling the working tree into .data/bench-build');
    tsc(path.join(ROOT, 'tsconfig.build.json'), BUILD);
  }
  return {
    label: 'after',
    rev: dirty ? `${head}+working tree` : head,
    main: path.join(BUILD, 'src/main.js'),
    flags: productionFlags(),
    env: productionEnv(),
  };
}

/** Compiles BENCH_BEFORE from a worktree; `cleanup` removes the worktree (the build stays until then). */
export function beforeBuild(): { build: GatewayBuild; cleanup: () => void } | undefined {
  const ref = process.env.BENCH_BEFORE ?? 'HEAD';
  if (ref === 'none') return undefined;
  const rev = git('rev-parse', '--short', ref);
  const dir = path.join(os.tmpdir(), `proxy-before-${randomBytes(4).toString('hex')}`);
  log(`before: git worktree add ${dir} ${rev}, compiled there`);
  git('worktree', 'add', '--detach', dir, rev);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const cleanup = () => {
    try {
      git('worktree', 'remove', '--force', dir);
    } catch {
      fs.rmSync(dir, { recursive: true, force: true });
      git('worktree', 'prune');
    }
  };
  try {
    tsc(path.join(dir, 'tsconfig.build.json'), path.join(dir, 'dist'));
  } catch (err) {
    cleanup();
    throw err;
  }
  const build = {
    label: 'before',
    rev,
    main: path.join(dir, 'dist/src/main.js'),
    flags: productionFlags(dir),
    env: productionEnv(dir),
  };
  return { build, cleanup };
}
