/**
 * Makes a headless browser available for the dashboard's browser tests: Debian's `chromium`
 * (driven by playwright-core; no browser download). Prints the path; installs the Debian package
 * when it is missing and this runs as root with apt-get; otherwise explains what to do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findChromium } from '../test/helpers/browser-path';

function main() {
  let found = findChromium();
  if (!found && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    process.stdout.write('chromium missing: apt-get install -y chromium\n');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (
      spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env })
        .status !== 0
    ) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
    }
    found = findChromium();
  }
  if (!found)
    throw new Error(
      'no chromium: install the Debian package `chromium` (apt-get install chromium) or set CHROMIUM_PATH',
    );
  process.stdout.write(`chromium: ${found}\n`);
}

main();
