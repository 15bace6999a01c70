import { randomBytes, randomUUID } from 'node:crypto';
import { CancelledFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { PageInput, PageResult, WebhookRecoveryActivities } from '../../../activities/webhook-recoveries';
import { suiteBundle } from '../../helpers/stubbed-workflow';
import { recoveryWorkflowId, WEBHOOK_RECOVERY_WORKFLOW } from '../../../src/webhooks/policy';
import type { WebhookRecoveryInput, WebhookRecoveryResult } from '../../../workflows/webhook-recovery';
import { quietTemporalRuntime } from './fixtures';

/**
 * The recovery workflow alone: stubbed page and finish activities on the time-skipping test
 * server, for the cursor hand-over, continue-as-new, cancel and failure rules.
 */
describe('webhookRecoveryWorkflow with stubbed activities (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleOption;
  const taskQueue = `wh-rec-stub-${randomBytes(4).toString('hex')}`;

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

  type Page = (input: PageInput, call: number) => Promise<PageResult>;

  /**
   * Runs one recovery workflow with `page` standing in for the page activity; answers its outcome and the calls made.
   */
  async function run(
    page: Page,
    input: Partial<WebhookRecoveryInput> = {},
    during?: (workflowId: string) => Promise<void>,
  ) {
    const pages: PageInput[] = [];
    const finishes: [string, string | undefined][] = [];
    const activities: WebhookRecoveryActivities = {
      recoverWebhookPage: async (i) => {
        pages.push(i);
        return page(i, pages.length);
      },
      finishWebhookRecovery: async (_id, status, error) => void finishes.push([status, error]),
    };
    // Heartbeats (and so cancels) go out at once rather than every 80 % of the heartbeat timeout.
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities,
      maxHeartbeatThrottleInterval: '50 ms',
    });
    const recoveryId = randomUUID();
    const workflowId = recoveryWorkflowId(recoveryId);
    const outcome = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start<(i: WebhookRecoveryInput) => Promise<WebhookRecoveryResult>>(
        WEBHOOK_RECOVERY_WORKFLOW,
        {
          taskQueue,
          workflowId,
          args: [{ recoveryId, ...input }],
        },
      );
      await during?.(workflowId);
      const result = await handle.result().catch((err: unknown) => err);
      const first = await env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory();
      const runId = (await env.client.workflow.getHandle(workflowId).describe()).runId;
      return {
        result,
        continuedAsNew: first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes != null,
        lastRunIsFirst: runId === handle.firstExecutionRunId,
      };
    });
    return { ...outcome, pages, finishes };
  }

  /** A window of `total` deliveries served in pages: the cursor is the offset. */
  const windowOf =
    (total: number): Page =>
    async ({ cursor, limit }) => {
      const from = cursor ? Number(cursor.id) : 0;
      const count = Math.max(0, Math.min(limit, total - from));
      return {
        count,
        cursor: count ? { at: '2026-01-01T00:00:00.000000Z', id: String(from + count) } : cursor,
        done: count < limit,
      };
    };

  it(
    'hands each page the previous cursor, ' + 'continues as new after itemsPerRun deliveries, and completes once',
    async () => {
      const r = await run(windowOf(73), { pageSize: 10, itemsPerRun: 25 });
      expect(r.result).toEqual({ status: 'completed' });
      expect(r.pages.map((p) => p.cursor?.id ?? null)).toEqual([null, '10', '20', '30', '40', '50', '60', '70']);
      expect(r.pages.every((p) => p.limit === 10)).toBe(true);
      expect(r.continuedAsNew).toBe(true);
      expect(r.lastRunIsFirst).toBe(false);
      expect(r.finishes).toEqual([['completed', undefined]]);
    },
  );

  it('a window that fits one run neither continues as new nor reads past the last page', async () => {
    const r = await run(windowOf(20), { pageSize: 10 });
    expect(r.pages).toHaveLength(3);
    expect(r.continuedAsNew).toBe(false);
    expect(r.finishes).toEqual([['completed', undefined]]);
  });

  it('on cancel waits for the page in flight to stop, then records cancelled and ends cancelled', async () => {
    const events: string[] = [];
    // The cancel goes out once the second page is running (a fixed delay raced a loaded machine).
    let pageRunning!: () => void;
    const running = new Promise<void>((resolve) => (pageRunning = resolve));
    const r = await run(
      async (_i, call) => {
        if (call === 1) return { count: 10, cursor: { at: '2026-01-01T00:00:00.000000Z', id: '10' }, done: false };
        const ctx = Context.current();
        pageRunning();
        for (;;) {
          ctx.heartbeat();
          if (ctx.cancellationSignal.aborted) break;
          await new Promise((res) => setTimeout(res, 50));
        }
        await new Promise((res) => setTimeout(res, 200)); // the sends in flight finish
        events.push('page stopped');
        throw new CancelledFailure('recovery cancelled');
      },
      { pageSize: 10 },
      async (workflowId) => {
        await running;
        await env.client.workflow.getHandle(workflowId).cancel();
      },
    );
    expect(r.result).toBeInstanceOf(WorkflowFailedError);
    expect((r.result as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(events).toEqual(['page stopped']);
    expect(r.finishes).toEqual([['cancelled', undefined]]);
  });

  it('records failed with the cause when a page gives up', async () => {
    const r = await run(async () => {
      throw ApplicationFailure.nonRetryable('database unreachable');
    });
    expect(r.result).toBeInstanceOf(WorkflowFailedError);
    expect(r.finishes).toEqual([['failed', 'database unreachable']]);
  });

  it(
    'stops when the page finds the webhook deleted (recorded) ' +
      'or the recovery cancelled by the API (nothing to record)',
    async () => {
      const deleted = await run(async () => ({ count: 0, cursor: null, done: true, stopped: 'webhook_deleted' }));
      expect(deleted.result).toEqual({ status: 'cancelled', reason: 'webhook_deleted' });
      expect(deleted.finishes).toEqual([['cancelled', 'the webhook was deleted']]);
      const cancelled = await run(async () => ({ count: 0, cursor: null, done: true, stopped: 'not_running' }));
      expect(cancelled.result).toEqual({ status: 'cancelled', reason: 'cancelled' });
      expect(cancelled.finishes).toEqual([]);
    },
  );
});
