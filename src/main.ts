import { ConfigError, loadConfig } from './config';
import { runDevStack } from './dev/stack';
import { createLogger } from './logger';
import { startRuntime } from './runtime';

/**
 * Entry point. `main.js [api|worker|exports|all|dev]`; without an argument the role comes from ROLE.
 * `dev` is the one-command local stack; the others are the production roles.
 */
async function main(): Promise<void> {
  const arg = process.argv[2];
  if (arg === 'dev') return runDevStack();

  const config = loadConfig(arg ? { ...process.env, ROLE: arg } : process.env);
  if (!config.DATABASE_URL)
    throw new ConfigError('Invalid configuration:\n  DATABASE_URL: required for the api and worker roles');
  const logger = createLogger(config.LOG_LEVEL);
  const runtime = await startRuntime(config, {
    role: config.ROLE,
    databaseUrl: config.DATABASE_URL,
    migrate: config.MIGRATE_ON_START,
    logger,
  });
  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await runtime.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : ((err as Error).stack ?? String(err))}\n`);
  process.exit(1);
});
