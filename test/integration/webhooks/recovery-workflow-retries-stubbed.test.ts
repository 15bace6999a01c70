import { randomBytes, randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { PageInput, PageResult, WebhookRecoveryActivities } from '../../../activities/webhook-recoveries';
import { recoveryWorkflowId, WEBHOOK_RECOVERY_WORKFLOW } from '../../../src/webhooks/policy';
import type { WebhookRecoveryInput, WebhookRecoveryResult } from '../../../workflows/webhook-recovery';
import {
  attemptNow,
  blockUntilCancelled,
  continuedAsNewArgs,
  createStubbedEnv,
  retryableSoon,
  scheduledRetryPolicies,
  stubWorker,
  waitFor,
  type StubbedEnv,
} from '../../helpers/stubbed-workflow';

type Page = (input: PageInput, attempt: number, log: string[]) => Promise<PageResult>;

/**
 * The recovery workflow alone, activities stubbed, on the time-skipping server: the retry,
 * give-up and later-run cases that recovery-workflow-stubbed.test.ts (cursor hand-over, one cancel,
 * one non-retryable failure, stops) does not cover.
 */
describe('webhookRecoveryWorkflow retries, failures and cancels across runs (stubbed, time-skipping)', () => {
  let s: StubbedEnv;
  beforeAll(async () => {
    s = await createStubbedEnv(`wh-rec-retry-${randomBytes(4).toString('hex')}`);
  });
  afterAll(() => s?.env.teardown());

  const at = '2026-01-01T00:00:00.000000Z';
  /** A window of `total` deliveries served in pages: the cursor id is the offset. */
  const windowOf =
    (total: number) =>
    async ({ cursor, limit }: PageInput): Promise<PageResult> => {
      const from = cursor ? Number(cursor.id) : 0;
      const count = Math.max(0, Math.min(limit, total - from));
      return { count, cursor: count ? { at, id: String(from + count) } : cursor, done: count < limit };
    };

  /**
   * Runs one recovery with `page` and `finish` standing in for the activities; `during` runs while it does (time
   * skipping locked).
   */
  async function run(
    page: Page,
    input: Partial<WebhookRecoveryInput> = {},
    opts: {
      finish?: (attempt: number) => Promise<void>;
      during?: (workflowId: string, log: string[]) => Promise<void>;
    } = {},
  ) {
    const log: string[] = [];
    const pages: (PageInput & { attempt: number })[] = [];
    const finishes: [string, string | undefined][] = [];
    const finishAttempts: number[] = [];
    const activities: WebhookRecoveryActivities = {
      recoverWebhookPage: async (i) => {
        pages.push({ ...i, attempt: attemptNow() });
        log.push(`page:${i.cursor?.id ?? null}#${attemptNow()}`);
        return page(i, attemptNow(), log);
      },
      finishWebhookRecovery: async (_id, status, error) => {
        finishAttempts.push(attemptNow());
        await opts.finish?.(attemptNow());
        log.push(`finish:${status}`);
        finishes.push([status, error]);
      },
    };
    const { worker, taskQueue } = await stubWorker(s, activities);
    const recoveryId = randomUUID();
    const workflowId = recoveryWorkflowId(recoveryId);
    const outcome = await worker.runUntil(async () => {
      const handle = await s.env.client.workflow.start<(i: WebhookRecoveryInput) => Promise<WebhookRecoveryResult>>(
        WEBHOOK_RECOVERY_WORKFLOW,
        {
          taskQueue,
          workflowId,
          args: [{ recoveryId, ...input }],
        },
      );
      await opts.during?.(workflowId, log);
      const result = await handle.result().catch((err: unknown) => err);
      const policies = () => scheduledRetryPolicies(s.env, workflowId, handle.firstExecutionRunId);
      return { result, policies, handed: await continuedAsNewArgs(s.env, workflowId, handle.firstExecutionRunId) };
    });
    return { ...outcome, recoveryId, log, pages, finishes, finishAttempts };
  }
  const cursorIds = (pages: PageInput[]) => pages.map((p) => p.cursor?.id ?? null);

  it(
    'retries a page that fails transiently with the same cursor and limit, ' + 'skipping and repeating nothing',
    async () => {
      const window = windowOf(35);
      const r = await run(
        async (i, attempt) => {
          if (i.cursor?.id === '20') {
            if (attempt === 1) throw new Error('database unreachable');
            if (attempt === 2) throw retryableSoon('database unreachable');
          }
          return window(i);
        },
        { pageSize: 10 },
      );
      expect(r.result).toEqual({ status: 'completed' });
      expect(r.pages.map((p) => [p.cursor?.id ?? null, p.attempt, p.limit])).toEqual([
        [null, 1, 10],
        ['10', 1, 10],
        ['20', 1, 10],
        ['20', 2, 10],
        ['20', 3, 10],
        ['30', 1, 10],
      ]);
      expect(r.finishes).toEqual([['completed', undefined]]);
      // The backoff as scheduled (from 1 s, doubling, at most 1 min, 20 attempts); the stub's nextRetryDelay only
      // shortens the wait.
      expect((await r.policies()).recoverWebhookPage).toEqual({
        initialInterval: 1,
        backoffCoefficient: 2,
        maximumInterval: 60,
        maximumAttempts: 20,
      });
    },
  );

  it(
    'a page that keeps failing gives up after 20 attempts: ' +
      'failed is recorded once with the cause and the workflow fails',
    async () => {
      const window = windowOf(50);
      const r = await run(
        async (i) => {
          if (i.cursor?.id === '10') throw retryableSoon('receiver pool exhausted');
          return window(i);
        },
        { pageSize: 10 },
      );
      expect(r.result).toBeInstanceOf(WorkflowFailedError);
      expect((r.result as WorkflowFailedError).cause).toBeInstanceOf(ActivityFailure);
      expect(r.pages.filter((p) => p.cursor?.id === '10').map((p) => p.attempt)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect(cursorIds(r.pages).filter((c) => c !== '10')).toEqual([null]);
      expect(r.finishes).toEqual([['failed', 'receiver pool exhausted']]);
    },
  );

  it(
    'a failure in a later run (after continue-as-new) records failed once: ' +
      'the hand-over itself is never taken for a failure',
    async () => {
      const window = windowOf(100);
      const r = await run(
        async (i) => {
          if (i.cursor?.id === '50') throw ApplicationFailure.nonRetryable('the window query was rejected');
          return window(i);
        },
        { pageSize: 10, itemsPerRun: 25 },
      );
      expect(r.result).toBeInstanceOf(WorkflowFailedError);
      expect(r.handed.map(([input]) => (input as WebhookRecoveryInput).cursor?.id)).toEqual(['30']);
      expect(r.handed[0]![0]).toEqual({
        recoveryId: r.recoveryId,
        pageSize: 10,
        itemsPerRun: 25,
        cursor: { at, id: '30' },
      });
      expect(cursorIds(r.pages)).toEqual([null, '10', '20', '30', '40', '50']);
      expect(r.pages.at(-1)!.attempt).toBe(1);
      expect(r.finishes).toEqual([['failed', 'the window query was rejected']]);
    },
  );

  it(
    'a cancel during a later run reaches it: the page in flight stops first, ' +
      'then cancelled is recorded once and nothing after',
    async () => {
      const window = windowOf(100);
      const r = await run(
        async (i, _attempt, log) => {
          if (i.cursor?.id === '40') await blockUntilCancelled(() => log.push('page stopped'));
          return window(i);
        },
        { pageSize: 10, itemsPerRun: 25 },
        {
          during: async (workflowId, log) => {
            await waitFor(() => log.includes('page:40#1'));
            log.push('CANCEL');
            await s.env.client.workflow.getHandle(workflowId).cancel();
          },
        },
      );
      expect(r.result).toBeInstanceOf(WorkflowFailedError);
      expect((r.result as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(r.handed.map(([input]) => (input as WebhookRecoveryInput).cursor?.id)).toEqual(['30']);
      expect(r.log).toEqual([
        'page:null#1',
        'page:10#1',
        'page:20#1',
        'page:30#1',
        'page:40#1',
        'CANCEL',
        'page stopped',
        'finish:cancelled',
      ]);
      expect(r.finishes).toEqual([['cancelled', undefined]]);
    },
  );

  it(
    'a retried finish: recording completed is retried until it succeeds (no attempt limit), ' +
      'and the result waits for it',
    async () => {
      const r = await run(
        windowOf(15),
        { pageSize: 10 },
        {
          finish: async (attempt) => {
            if (attempt < 4) throw retryableSoon('database unreachable');
          },
        },
      );
      expect(r.result).toEqual({ status: 'completed' });
      expect(r.finishAttempts).toEqual([1, 2, 3, 4]);
      expect((await r.policies()).finishWebhookRecovery).toMatchObject({ initialInterval: 1, maximumAttempts: 0 });
      expect(r.finishes).toEqual([['completed', undefined]]);
      expect(r.log.at(-1)).toBe('finish:completed');
    },
  );

  it(
    'a page answering not_running after the workflow was also ' +
      'cancelled ends Canceled (as asked) and records cancelled',
    async () => {
      const r = await run(
        async () => {
          const ctx = Context.current();
          while (!ctx.cancellationSignal.aborted) {
            ctx.heartbeat();
            await new Promise((res) => setTimeout(res, 25));
          }
          return { count: 0, cursor: null, done: true, stopped: 'not_running' };
        },
        { pageSize: 10 },
        {
          during: async (workflowId) => {
            await new Promise((res) => setTimeout(res, 300));
            await s.env.client.workflow.getHandle(workflowId).cancel();
          },
        },
      );
      expect(r.result).toBeInstanceOf(WorkflowFailedError);
      expect((r.result as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(r.finishes).toEqual([['cancelled', undefined]]);
    },
  );
});
