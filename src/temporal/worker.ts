import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { Sinks } from '@temporalio/workflow';
import {
  bundleWorkflowCode,
  type InjectedSinks,
  NativeConnection,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import type { Logger } from '../logger';
import { installRuntime } from './activity-worker';

/**
 * Bundles the workflow code (webpack: seconds). Callers that start several workers keep the result.
 * `workflowsPath`: another entry (bench:webhooks' floor); the service's workflows by default.
 */
export function workflowBundle(
  workflowsPath = require.resolve('../../workflows'),
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath,
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: console.warn,
      error: console.error,
    },
  });
}

/** Writes the bundle to `file` for TEMPORAL_WORKFLOW_BUNDLE (`npm run bundle:workflows`, the test suite's setup). */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await workflowBundle();
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, code);
}

interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  logger: Logger;
  /** Every activity the worker registers, bound to its dependencies by the runtime (activities/index.ts). */
  activities: object;
  /** A prebuilt bundle's path (TEMPORAL_WORKFLOW_BUNDLE); without it the workflows are bundled here. */
  bundlePath?: string;
  /** Workflow sinks (bench:webhooks' floor counts finished runs with one; the service has none). */
  sinks?: InjectedSinks<Sinks>;
}

/** The running worker; a WorkerLink (src/context.ts) for the worker role's background services. */
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

/** @public loaded lazily by src/runtime.ts (worker roles only) */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  installRuntime(opts.logger);
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: opts.bundlePath ? { codePath: opts.bundlePath } : await workflowBundle(),
    activities: opts.activities,
    sinks: opts.sinks,
    shutdownGraceTime: '10 seconds',
    // Eager workflow start (the outbox dispatcher) hands a new workflow's first task to this worker
    // only while it has a free workflow-task slot; otherwise the task goes through server-side
    // matching and a poll, which costs the server about half again as much CPU per delivery. Workflow
    // tasks here are short (a delivery attempt is a local activity of at most ~10 s), so many slots
    // cost little memory and keep bursts on the eager path. Local activity slots match them.
    maxConcurrentWorkflowTaskExecutions: 200,
    maxConcurrentLocalActivityExecutions: 200,
    // Two workflow threads instead of one. Every entry into a workflow's V8 context runs with the
    // deadlock timeout, for which Node starts and joins a watchdog thread (~10 entries per
    // delivery); on a busy machine each join waits for that thread to be scheduled, and with one
    // workflow thread those waits queued every activation of the process behind each other (half
    // that thread's wall time in the bench profile). Runs are spread over the threads by run id.
    workflowThreadPoolSize: 2,
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
