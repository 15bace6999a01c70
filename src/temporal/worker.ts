import { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import type { Logger } from '../logger';

/** Bundles the workflow code (webpack: seconds). Callers that start several workers keep the result. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: console.warn, error: console.error },
  });
}

/**
 * Routes the Temporal core's logs through our logger at warn level and above. The core runtime is
 * process-wide and can be installed once: a second install (another runtime in this process, as
 * in tests) keeps the first.
 */
function installRuntime(logger: Logger) {
  const log = logger.child({ component: 'temporal' });
  try {
    Runtime.install({
      logger: {
        log: (level, message, meta) => (level === 'WARN' || level === 'ERROR' ? log[level === 'WARN' ? 'warn' : 'error'](meta ?? {}, message) : undefined),
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

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** The activities' dependencies, from the runtime's context. */
  deps: ActivityDeps;
}

/**
 * An activity-only worker (no workflow bundle, so a light process): the export task queue, whose
 * heavy file writing is kept apart from deliveries and limited to `concurrency` at once.
 */
export async function startActivityWorker(opts: WorkerOptions & { activities: object; concurrency: number; connection?: NativeConnection }): Promise<{ stop(): Promise<void> }> {
  installRuntime(opts.deps.logger);
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

export interface RunningWorker {
  worker: Worker;
  connection: NativeConnection;
  /**
   * A client on the worker's own connection: workflows it starts with `requestEagerStart` get their
   * first workflow task in the start response, handed to this worker without a poll round trip.
   * Valid until the worker stops.
   */
  client: Client;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  installRuntime(opts.deps.logger);
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities(opts.deps),
    shutdownGraceTime: '10 seconds',
    // Eager workflow start (the outbox dispatcher) hands a new workflow's first task to this worker
    // only while it has a free workflow-task slot; otherwise the task goes through server-side
    // matching and a poll, which costs the server about half again as much CPU per delivery. Workflow
    // tasks here are short (a delivery attempt is a local activity of at most ~10 s), so many slots
    // cost little memory and keep bursts on the eager path. Local activity slots match them.
    maxConcurrentWorkflowTaskExecutions: 200,
    maxConcurrentLocalActivityExecutions: 200,
  });
  const done = worker.run().finally(() => connection.close());
  return {
    worker,
    connection,
    client: new Client({ connection, namespace: opts.namespace }),
    done,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
