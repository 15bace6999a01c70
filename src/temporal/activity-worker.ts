import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Logger } from '../logger';

/**
 * Routes the Temporal core's logs through our logger at warn level and above. The core runtime is
 * process-wide and can be installed once: a second install (another runtime in this process, as
 * in tests) keeps the first.
 */
export function installRuntime(logger: Logger) {
  const log = logger.child({ component: 'temporal' });
  try {
    Runtime.install({
      logger: {
        log: (level, message, meta) =>
          level === 'WARN' || level === 'ERROR'
            ? log[level === 'WARN' ? 'warn' : 'error'](meta ?? {}, message)
            : undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: (m, meta) => log.warn(meta ?? {}, m),
        error: (m, meta) => log.error(meta ?? {}, m),
      },
    });
  } catch {
    // already installed in this process
  }
}

interface ActivityWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  logger: Logger;
  activities: object;
  concurrency: number;
  /** Share an existing connection (the worker role's); otherwise one of its own, closed on stop. */
  connection?: NativeConnection | undefined;
}

/**
 * An activity-only worker (no workflow bundle, so a light process): the export task queue, whose
 * heavy file writing is kept apart from deliveries and limited to `concurrency` at once.
 * @public loaded lazily by src/runtime.ts
 */
export async function startActivityWorker(opts: ActivityWorkerOptions): Promise<{ stop(): Promise<void> }> {
  installRuntime(opts.logger);
  const own = !opts.connection;
  const connection = opts.connection ?? (await NativeConnection.connect({ address: opts.address }));
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: opts.activities,
    maxConcurrentActivityTaskExecutions: opts.concurrency,
    shutdownGraceTime: '10 seconds',
  });
  const done = worker.run().finally(() => (own ? connection.close() : undefined));
  return {
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
