import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, waitForPort } from '../../src/util/net';
import { TEST_JWT_SECRET } from './auth';

const ROOT = path.resolve(__dirname, '../..');

export interface ApiChild {
  url: string;
  child: ChildProcess;
  /** Everything the process printed (for failure messages). */
  output(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string | null>;
}

/**
 * `src/main.ts api` in a process of its own, for drills that signal or kill it. tsx runs as a
 * loader, not its CLI: the CLI runs the app in a grandchild that a signal would not reach.
 */
export async function startApiChild(env: Record<string, string>): Promise<ApiChild> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'api'], {
    cwd: ROOT,
    env: {
      ...process.env,
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string | null>((r) => child.once('exit', (code, signal) => r(code ?? signal)));
  await waitForPort('127.0.0.1', port, 30_000);
  return { url: `http://127.0.0.1:${port}`, child, output: () => out, exited };
}
