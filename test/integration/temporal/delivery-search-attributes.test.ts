import { randomBytes, randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Activities } from '../../../activities';
import type { AttemptInput, AttemptResult } from '../../../activities/webhooks';
import { registerSearchAttributes } from '../../../src/temporal/client';
import { searchAttributes } from '../../../src/temporal/names';
import { suiteBundle } from '../../helpers/stubbed-workflow';
import { deliveryWorkflowId, WEBHOOK_DELIVERY_WORKFLOW } from '../../../src/webhooks/policy';
import { startDeliveryWorkflow } from '../../../src/webhooks/workflow-client';
import { quietTemporalRuntime, waitUntil } from '../webhooks/fixtures';

/**
 * The delivery workflow keeps `DeliveryStatus` and `AttemptCount` current, upserting only what
 * changed (each upsert is a command: a history event and a visibility write). Stubbed attempts on
 * the time-skipping server; the upserts are read back from the history.
 */
describe('delivery search attributes (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleOption;
  const taskQueue = `wh-sa-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    quietTemporalRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    await registerSearchAttributes(env.connection, env.namespace ?? 'default');
    bundle = await suiteBundle();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  const failed: AttemptResult = {
    kind: 'attempted',
    ok: false,
    httpStatus: 500,
    durationMs: 5,
    errorMessage: 'HTTP 500',
  } as AttemptResult;
  const delivered: AttemptResult = {
    kind: 'attempted',
    ok: true,
    httpStatus: 200,
    durationMs: 5,
    errorMessage: null,
  } as AttemptResult;

  function worker(attempt: (input: AttemptInput, call: number) => Promise<AttemptResult>) {
    let calls = 0;
    const activities: Pick<Activities, 'attemptWebhookDelivery' | 'recordWebhookDelivery'> = {
      attemptWebhookDelivery: (input) => attempt(input, ++calls),
      recordWebhookDelivery: async () => undefined,
    };
    return Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities });
  }

  /** Starts a delivery the way the dispatcher does (initial pending / 0). */
  async function start(): Promise<WorkflowHandle> {
    const id = randomUUID();
    await startDeliveryWorkflow(env.client, taskQueue, {
      id,
      webhookId: randomUUID(),
      orgId: randomUUID(),
      eventType: 'request.created',
      url: 'https://hooks.example.com/x',
    });
    return env.client.workflow.getHandle(deliveryWorkflowId(id));
  }

  /** Every upsert in the history, decoded, and how many workflow tasks the run took. */
  async function upserts(handle: WorkflowHandle) {
    const events = (await handle.fetchHistory()).events ?? [];
    const decoded = events
      .map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields)
      .filter((f): f is NonNullable<typeof f> => !!f)
      .map((f) =>
        Object.fromEntries(Object.entries(f).map(([k, p]) => [k, JSON.parse(Buffer.from(p.data!).toString())])),
      );
    return { decoded, workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length };
  }

  async function current(handle: WorkflowHandle) {
    const sa = (await handle.describe()).typedSearchAttributes;
    return { status: sa.get(searchAttributes.DeliveryStatus), attempts: sa.get(searchAttributes.AttemptCount) };
  }

  it('delivered at once: one upsert (delivered, 1) in the one workflow task that completes the delivery', async () => {
    const w = await worker(async () => delivered);
    const handle = await start();
    expect(await current(handle)).toEqual({ status: 'pending', attempts: 0 });
    await w.runUntil(handle.result());
    expect(await upserts(handle)).toEqual({
      decoded: [{ DeliveryStatus: 'delivered', AttemptCount: 1 }],
      workflowTasks: 1,
    });
    expect(await current(handle)).toEqual({ status: 'delivered', attempts: 1 });
  });

  it('five failures: failed at 1, then only the count, then dead_lettered at 5', async () => {
    const w = await worker(async () => failed);
    const handle = await start();
    await w.runUntil(handle.result());
    expect((await upserts(handle)).decoded).toEqual([
      { DeliveryStatus: 'failed', AttemptCount: 1 },
      { AttemptCount: 2 },
      { AttemptCount: 3 },
      { AttemptCount: 4 },
      { DeliveryStatus: 'dead_lettered', AttemptCount: 5 },
    ]);
    expect(await current(handle)).toEqual({ status: 'dead_lettered', attempts: 5 });
  });

  it('stopped by a disabled webhook before any attempt: cancelled, count unchanged', async () => {
    const w = await worker(async () => ({ kind: 'stopped', reason: 'webhook_disabled' }));
    const handle = await start();
    await w.runUntil(handle.result());
    expect((await upserts(handle)).decoded).toEqual([{ DeliveryStatus: 'cancelled' }]);
  });

  it('cancelled while waiting to retry: failed (1), then cancelled', async () => {
    let attempted = false;
    const w = await worker(async () => {
      attempted = true;
      return failed;
    });
    const handle = await start();
    await w.runUntil(async () => {
      // No result() call yet, so the server does not skip time: the workflow waits on its 1-minute timer.
      await waitUntil(async () => attempted && (await current(handle)).status === 'failed', 20_000, 'first attempt');
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    });
    expect((await upserts(handle)).decoded).toEqual([
      { DeliveryStatus: 'failed', AttemptCount: 1 },
      { DeliveryStatus: 'cancelled' },
    ]);
  });

  it(
    'a workflow started without DeliveryStatus (before this change) upserts nothing, ' +
      'so its replay stays deterministic',
    async () => {
      const w = await worker(async (_i, call) => (call < 2 ? failed : delivered));
      const id = randomUUID();
      const handle = await env.client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        taskQueue,
        workflowId: deliveryWorkflowId(id),
        args: [{ deliveryId: id, webhookId: randomUUID(), orgId: randomUUID(), eventType: 'request.created' }],
      });
      expect(await w.runUntil(handle.result())).toEqual({ status: 'delivered', attempts: 2 });
      expect((await upserts(handle)).decoded).toEqual([]);
    },
  );
});
