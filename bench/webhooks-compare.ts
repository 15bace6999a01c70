/** bench:webhooks' before and after (bench/webhooks.ts): the same run against two builds, compared. */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { print, type RunResult } from './webhooks-report';

const REPO = path.resolve(__dirname, '..');
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/**
 * Parent: a worktree of BENCH_BEFORE, then a child per build (`script` again, with BENCH_ROOT set
 * to the code under test), then both side by side.
 */
export async function compare(script: string, seconds: number): Promise<void> {
  const ref = process.env.BENCH_BEFORE ?? 'HEAD';
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  const rev = ref === 'none' ? '' : git('rev-parse', '--short', ref);
  const dirty = git('status', '--porcelain', '--', 'src', 'activities', 'workflows', 'migrations').length > 0;
  const builds: { label: string; root: string; rev: string }[] = [];
  let worktree: string | undefined;
  if (ref !== 'none') {
    worktree = path.join(os.tmpdir(), `wh-before-${randomBytes(4).toString('hex')}`);
    log(`before: git worktree add ${worktree} ${rev}`);
    git('worktree', 'add', '--detach', worktree, rev);
    symlinkSync(path.join(REPO, 'node_modules'), path.join(worktree, 'node_modules'), 'dir');
    builds.push({ label: 'before', root: worktree, rev });
  }
  builds.push({
    label: 'after',
    root: REPO,
    rev: dirty ? `${git('rev-parse', '--short', 'HEAD')}+working tree` : git('rev-parse', '--short', 'HEAD'),
  });
  const results: RunResult[] = [];
  try {
    for (const b of builds) {
      const env = { BENCH_ROOT: b.root, BENCH_LABEL: b.label, BENCH_REV: b.rev };
      results.push(...(await child(script, b.label, env)));
    }
    // Temporal alone at the same rates: what one workflow per delivery costs before any work of ours.
    if (process.env.BENCH_FLOOR !== '0')
      results.push(...(await child(path.join(__dirname, 'webhooks-floor.ts'), 'floor')));
  } finally {
    if (worktree) {
      try {
        git('worktree', 'remove', '--force', worktree);
      } catch {
        rmSync(worktree, { recursive: true, force: true });
        git('worktree', 'prune');
      }
    }
  }
  console.log('\n===== before and after =====');
  print(results, seconds);
}

/** Runs one child with BENCH_OUT set and reads back its result (one run, or the floor's two). */
async function child(script: string, label: string, env: Record<string, string> = {}): Promise<RunResult[]> {
  const out = path.join(os.tmpdir(), `wh-bench-${randomBytes(4).toString('hex')}.json`);
  const proc = spawn(process.execPath, [...process.execArgv, script], {
    cwd: REPO,
    env: { ...process.env, ...env, BENCH_OUT: out },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const [code] = (await once(proc, 'exit')) as [number | null];
  if (code !== 0 || !existsSync(out)) throw new Error(`${label} run failed (exit ${code})`);
  const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult | RunResult[];
  rmSync(out, { force: true });
  return Array.isArray(result) ? result : [result];
}
