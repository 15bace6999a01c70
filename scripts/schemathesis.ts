import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/temporal/binaries';

/**
 * Schemathesis (PyPI) for the API fuzz run: `SCHEMATHESIS_PATH`, else `st` in the project's own
 * virtual environment `.tools/schemathesis`, installed there on first use with python3 -m venv + pip.
 */
export const SCHEMATHESIS_VERSION = '4.32.5';
const VENV = path.join(PROJECT_ROOT, '.tools', 'schemathesis');
const ST = path.join(VENV, 'bin', 'st');

function version(bin: string): string | null {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

export function resolveSchemathesis(log: (m: string) => void = () => undefined): string {
  const given = process.env.SCHEMATHESIS_PATH;
  if (given) {
    if (!version(given)) throw new Error(`SCHEMATHESIS_PATH=${given} does not run`);
    return given;
  }
  if (existsSync(ST) && version(ST)?.includes(SCHEMATHESIS_VERSION)) return ST;
  log(`installing schemathesis==${SCHEMATHESIS_VERSION} into ${VENV}`);
  const steps: [string, string[]][] = [
    ['python3', ['-m', 'venv', VENV]],
    [
      path.join(VENV, 'bin', 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`],
    ],
  ];
  for (const [cmd, args] of steps) {
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
    if (r.status !== 0) {
      const stderrTail = (r.stderr ?? '').trim().split('\n').slice(-3).join(' ');
      throw new Error(
        `${cmd} ${args.join(' ')} failed (${r.status}): ${stderrTail}. ` +
          `Install schemathesis==${SCHEMATHESIS_VERSION} and set SCHEMATHESIS_PATH.`,
      );
    }
  }
  if (!version(ST)) throw new Error(`schemathesis did not install into ${VENV}`);
  return ST;
}

if (require.main === module) {
  try {
    const st = resolveSchemathesis((m) => console.log(`[schemathesis] ${m}`));
    console.log(`[schemathesis] ${st} (${version(st)})`);
  } catch (err) {
    console.error(`[schemathesis] ${(err as Error).message}`);
    process.exit(1);
  }
}
