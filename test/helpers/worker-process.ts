import { loadConfig } from '../../src/config';
import { startRuntime } from '../../src/runtime';

/**
 * The service's worker role in a process of its own, for crash drills: configured from the
 * environment, prints `ready` once the Temporal worker and the dispatcher run, and is meant to be
 * SIGKILLed (a graceful SIGTERM stop is also handled).
 */
async function main() {
  const config = loadConfig(process.env);
  const runtime = await startRuntime(config, {
    role: (process.env.WORKER_ROLE as 'worker' | 'exports' | undefined) ?? 'worker',
    databaseUrl: config.DATABASE_URL!,
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void runtime.stop().then(() => process.exit(0)));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
