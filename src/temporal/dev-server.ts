import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { waitForPort } from '../util/net';
import { resolveTemporalCli } from './binaries';
import { cliTypeName, searchAttributes } from './names';

export interface DevServerOptions {
  host?: string;
  port: number;
  /** Web UI port; omit for a headless server. */
  uiPort?: number;
  /** SQLite file to persist to; omit for an in-memory server. */
  dbFile?: string;
  namespace?: string;
  /** Extra dynamic config (`--dynamic-config-value KEY=VALUE`), on top of DEV_SERVER_DYNAMIC_CONFIG. */
  dynamicConfig?: Record<string, string | number | boolean>;
  log?: (m: string) => void;
}

/**
 * Dynamic config for the dev server. Eager workflow start lets a client on a worker's connection
 * (the outbox dispatcher) receive the new workflow's first task in the start response.
 */
const DEV_SERVER_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  'system.enableEagerWorkflowStart': true,
};

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev` with our search attributes registered, and waits until it serves. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const host = opts.host ?? '127.0.0.1';
  const cli = resolveTemporalCli({ log: opts.log });
  const args = ['server', 'start-dev', '--ip', host, '--port', String(opts.port), '--log-level', 'error'];
  // No internet here or in most deployments behind a firewall: skip the UI's news feed.
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort), '--ui-ip', host, '--ui-disable-news-fetch');
  else args.push('--headless');
  if (opts.dbFile) {
    mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  for (const attr of Object.values(searchAttributes))
    args.push('--search-attribute', `${attr.name}=${cliTypeName[attr.type]}`);
  for (const [key, value] of Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...opts.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }

  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`temporal server start-dev exited with ${code}: ${stderr.trim()}`))),
  );
  exited.catch(() => undefined);
  await Promise.race([waitForPort(host, opts.port, 60_000), exited]);
  if (opts.uiPort) await Promise.race([waitForPort(host, opts.uiPort, 30_000), exited]);

  return {
    address: `${host}:${opts.port}`,
    uiUrl: opts.uiPort ? `http://${host}:${opts.uiPort}` : undefined,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
