/** Finds or installs the Temporal CLI and test server (used by .ci/run and by hand). */
import { binaryVersion, resolveTemporalCli, resolveTestServer } from '../src/temporal/binaries';

const log = (m: string) => console.log(`[temporal:install] ${m}`);
try {
  const cli = resolveTemporalCli({ log });
  log(`Temporal CLI: ${cli} (${binaryVersion(cli)})`);
  const testServer = resolveTestServer({ log });
  log(`time-skipping test server: ${testServer}`);
} catch (err) {
  console.error(`[temporal:install] ${(err as Error).message}`);
  process.exit(1);
}
