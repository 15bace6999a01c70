#!/usr/bin/env node
/**
 * Adds lockfile entries for native optional dependencies of other platforms.
 *
 * Why: the package registry this project installs from only serves the Linux builds of
 * native packages (@swc/core-*, @unrs/resolver-binding-*), so `npm install` writes a
 * lockfile without the darwin/win32/... variants, and `npm ci` then refuses the lockfile
 * as "out of sync". An entry with the right `os`/`cpu` is all `npm ci` needs: it skips
 * packages for other platforms without fetching them. Run after changing dependencies:
 *   npm install && node scripts/lock-other-platforms.js          (repository root)
 *   (cd sdk && npm install) && node scripts/lock-other-platforms.js sdk
 */
const fs = require('node:fs');
const path = require('node:path');

// The package folder whose lockfile to complete: the repository root by default, or e.g. `sdk`.
const lockPath = path.resolve(process.argv[2] ?? path.join(__dirname, '..'), 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'win32', 'linux', 'freebsd', 'android', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32', 'mips64el'];

/** Reads the platform from a name like `@swc/core-linux-arm-gnueabihf`. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  const libc = os === 'linux' ? (parts.some((p) => p.startsWith('musl')) ? 'musl' : 'glibc') : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [key, entry] of Object.entries(packages)) {
  if (!key || !entry.optionalDependencies) continue;
  const base = key.slice(0, key.lastIndexOf('node_modules/'));
  for (const [name, spec] of Object.entries(entry.optionalDependencies)) {
    const target = `${base}node_modules/${name}`;
    if (packages[target] || packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(spec)) {
      console.warn(`skipped ${name}@${spec}: not an exact-version platform package`);
      continue;
    }
    packages[target] = {
      version: spec,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [platform.os],
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
    };
    added++;
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} lockfile entries for other platforms`);
