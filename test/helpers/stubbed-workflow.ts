import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure, defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { workflowBundle } from '../../src/temporal/worker';

/**
 * Shared fixtures for workflow tests with stubbed activities on the time-skipping test server (in
 * the style of test/integration/webhooks/delivery-workflow-stubbed.test.ts): one environment and
 * one workflow bundle per file, a fresh worker per case with plain async functions as activities.
 */
export interface StubbedEnv {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleOption;
  taskQueue: string;
}

export async function createStubbedEnv(taskQueue: string): Promise<StubbedEnv> {
  try {
    Runtime.install({
      logger: {
        log: () => undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: (m, meta) => console.error(m, meta),
      },
    });
  } catch {
    // already installed in this process
  }
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
  });
  return { env, bundle: await suiteBundle(), taskQueue };
}

/** The bundle the suite's setup wrote once (TEMPORAL_WORKFLOW_BUNDLE), else one bundled here. */
export async function suiteBundle(): Promise<WorkflowBundleOption> {
  const prebuilt = process.env.TEMPORAL_WORKFLOW_BUNDLE;
  return prebuilt ? { codePath: prebuilt } : workflowBundle();
}

let queues = 0;
/**
 * A worker on a task queue of its own (a case that timed out cannot leave a worker behind on the
 * next case's queue); heartbeats (and so cancels) go out at once. Start workflows on `taskQueue`.
 */
export async function stubWorker(
  { env, bundle, taskQueue }: StubbedEnv,
  activities: object,
): Promise<{ worker: Worker; taskQueue: string }> {
  const queue = `${taskQueue}-${++queues}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: queue,
    workflowBundle: bundle,
    activities,
    maxHeartbeatThrottleInterval: '50 ms',
  });
  return { worker, taskQueue: queue };
}

/**
 * A retryable failure retried after `delay` instead of the policy's backoff: the test server does
 * not skip time during an activity's retry backoff (it runs in real time), so cases that exhaust a
 * policy of several attempts use this. maximumAttempts still applies.
 */
export const retryableSoon = (message: string, delay = '10 ms') =>
  ApplicationFailure.create({ message, nextRetryDelay: delay });

/** The arguments each run of a workflow id handed to its successor (continue-as-new), oldest first. */
export async function continuedAsNewArgs(
  env: TestWorkflowEnvironment,
  workflowId: string,
  firstRunId: string,
): Promise<unknown[][]> {
  const out: unknown[][] = [];
  let runId: string | null | undefined = firstRunId;
  while (runId) {
    const history: temporal.api.history.v1.IHistory = await env.client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const can = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes;
    if (!can) break;
    out.push((can.input?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload(p)));
    runId = can.newExecutionRunId;
  }
  return out;
}

/** Polls (real time) until `cond` holds. */
export async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Inside a stub activity: heartbeats until the activity is cancelled, then ends it cancelled. */
export async function blockUntilCancelled(onCancelled?: () => void): Promise<never> {
  const ctx = Context.current();
  while (!ctx.cancellationSignal.aborted) {
    ctx.heartbeat();
    await new Promise((r) => setTimeout(r, 25));
  }
  onCancelled?.();
  throw new CancelledFailure('cancelled');
}

/** The attempt number of the stub activity running now (1 for the first try). */
export const attemptNow = (): number => Context.current().info.attempt;

/**
 * The retry policy each activity type was scheduled with in a run, as the history records it
 * (intervals in seconds): checks the backoff a workflow declares without waiting it out.
 */
export async function scheduledRetryPolicies(env: TestWorkflowEnvironment, workflowId: string, runId: string) {
  const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const out: Record<
    string,
    { initialInterval: number; backoffCoefficient: number; maximumInterval: number; maximumAttempts: number }
  > = {};
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (!a?.activityType?.name || !a.retryPolicy) continue;
    const p = a.retryPolicy;
    const secs = (d: typeof p.initialInterval) => Number(d?.seconds ?? 0) + (d?.nanos ?? 0) / 1e9;
    out[a.activityType.name] = {
      initialInterval: secs(p.initialInterval),
      backoffCoefficient: p.backoffCoefficient ?? 0,
      maximumInterval: secs(p.maximumInterval),
      maximumAttempts: p.maximumAttempts ?? 0,
    };
  }
  return out;
}
