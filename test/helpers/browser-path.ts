import { existsSync } from 'node:fs';

/** The headless browser of the dashboard tests: CHROMIUM_PATH, else Debian's chromium. */
export function findChromium(): string | null {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (p && existsSync(p)) return p;
  return null;
}
