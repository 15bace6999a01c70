import { randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Activities } from '../../../activities';
import type { AttemptInput, AttemptResult, DeliveryRecordFields } from '../../../activities/webhooks';
import { suiteBundle } from '../../helpers/stubbed-workflow';
import { deliveryWorkflowId, WEBHOOK_DELIVERY_WORKFLOW } from '../../../src/webhooks/policy';
import type { WebhookDeliveryResult } from '../../../workflows/webhook-delivery';
import { quietTemporalRuntime } from './fixtures';

/**
 * The delivery workflow alone, in the style of Temporal's TypeScript samples: stubbed activities
 * on the time-skipping test server, so the retry schedule, the expiry and the stop rules are
 * checked without a database or a receiver.
 */
describe('webhookDeliveryWorkflow with stubbed activities (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleOption;
  const taskQueue = `wh-stub-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    quietTemporalRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    bundle = await suiteBundle();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  /**
   * Runs one delivery workflow with `attempt` standing in for the attempt activity; returns its result and the calls
   * made.
   */
  async function run(
    attempt: (input: AttemptInput, call: number) => Promise<AttemptResult>,
    extra: { redelivery?: number; firstAttempt?: number } = {},
  ) {
    const attempts: AttemptInput[] = [];
    const records: DeliveryRecordFields[] = [];
    const activities: Pick<Activities, 'attemptWebhookDelivery' | 'recordWebhookDelivery' | 'checkDatabase'> = {
      attemptWebhookDelivery: async (input) => {
        attempts.push(input);
        return attempt(input, attempts.length);
      },
      recordWebhookDelivery: async ({ fields }) => void records.push(fields),
      checkDatabase: async () => ({ database: 'stub', now: new Date().toISOString() }),
    };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities,
    });
    const deliveryId = randomUUID();
    const result = await worker.runUntil(
      env.client.workflow.execute<(i: unknown) => Promise<WebhookDeliveryResult>>(WEBHOOK_DELIVERY_WORKFLOW, {
        taskQueue,
        workflowId: deliveryWorkflowId(deliveryId),
        args: [{ deliveryId, webhookId: randomUUID(), orgId: randomUUID(), eventType: 'request.created', ...extra }],
      }),
    );
    return { result, attempts, records };
  }

  const failed = (httpStatus = 500): AttemptResult => ({
    kind: 'attempted',
    ok: false,
    httpStatus,
    durationMs: 5,
    errorMessage: `HTTP ${httpStatus}`,
  });
  const delivered: AttemptResult = { kind: 'attempted', ok: true, httpStatus: 200, durationMs: 5, errorMessage: null };

  it('delivers at once when the first attempt succeeds', async () => {
    const { result, attempts, records } = await run(async () => delivered);
    expect(result).toEqual({ status: 'delivered', attempts: 1 });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, retryDelayMs: 60_000 });
    expect(attempts[0]!.firstAttemptAt).toBe(attempts[0]!.attemptedAt);
    expect(records).toHaveLength(0);
  });

  it('waits at least 1, 2, 4, 8 minutes between attempts and dead-letters after the 5th failure', async () => {
    const { result, attempts } = await run(async () => failed());
    expect(result).toEqual({ status: 'dead_lettered', attempts: 5, dlqReason: 'max_attempts' });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(attempts.map((a) => a.retryDelayMs)).toEqual([60_000, 120_000, 240_000, 480_000, null]);
    const at = attempts.map((a) => Date.parse(a.attemptedAt));
    [1, 2, 4, 8].forEach((minutes, i) => expect(at[i + 1]! - at[i]!).toBeGreaterThanOrEqual(minutes * 60_000));
    expect(new Set(attempts.map((a) => a.firstAttemptAt))).toEqual(new Set([attempts[0]!.attemptedAt]));
  });

  it(
    'a redelivery run numbers its attempts from firstAttempt and keeps the rules: ' + '5 attempts, 1, 2, 4, 8 minutes',
    async () => {
      const { result, attempts } = await run(async () => failed(), { redelivery: 2, firstAttempt: 8 });
      expect(result).toEqual({ status: 'dead_lettered', attempts: 12, dlqReason: 'max_attempts' });
      expect(attempts.map((a) => [a.attempt, a.retryDelayMs, a.redelivery])).toEqual([
        [8, 60_000, 2],
        [9, 120_000, 2],
        [10, 240_000, 2],
        [11, 480_000, 2],
        [12, null, 2],
      ]);
    },
  );

  it('ends delivered on a later attempt when one succeeds', async () => {
    const { result, attempts } = await run(async (_i, call) => (call < 3 ? failed(503) : delivered));
    expect(result).toEqual({ status: 'delivered', attempts: 3 });
    expect(attempts).toHaveLength(3);
  });

  it('ends cancelled, without recording anything itself, when the attempt reports the webhook stopped', async () => {
    const { result, records } = await run(async (_i, call) =>
      call === 1 ? failed() : { kind: 'stopped', reason: 'webhook_disabled' },
    );
    expect(result).toEqual({ status: 'cancelled', attempts: 1, stopReason: 'webhook_disabled' });
    expect(records).toHaveLength(0);
  });

  it(
    'retries an attempt that cannot run (infrastructure fault) ' +
      'under the same number until 24 h passed, then records `expired`',
    async () => {
      const { result, attempts, records } = await run(async (_i, call) => {
        if (call === 1) return failed();
        throw ApplicationFailure.create({ message: 'database unreachable' });
      });
      expect(result).toEqual({ status: 'dead_lettered', attempts: 1, dlqReason: 'expired' });
      expect(new Set(attempts.slice(1).map((a) => a.attempt))).toEqual(new Set([2]));
      expect(records).toEqual([
        expect.objectContaining({ status: 'dead_lettered', dlq_reason: 'expired', next_retry_at: null }),
      ]);
      const first = Date.parse(attempts[0]!.attemptedAt);
      expect(Date.parse(records[0]!.dlq_at!) - first).toBeGreaterThanOrEqual(24 * 3600_000);
    },
  );
});
