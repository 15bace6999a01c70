import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The worker role in a child process (test/helpers/worker-process.ts), for drills that SIGKILL
 * it: node runs it directly (tsx as a loader), in its own process group, resolved once `ready`.
 */
export function startWorkerChild(env: Record<string, string>): Promise<ChildProcess> {
  const p = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/worker-process.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    p.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve(p));
    p.once('exit', (code) => reject(new Error(`worker process exited (${code}) before it was ready`)));
  });
}

/** Signals the child's whole process group and waits for it to exit. */
export async function killWorkerChild(p: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((r) => p.once('exit', r));
  process.kill(-p.pid!, signal);
  await exited;
}
