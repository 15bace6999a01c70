import { randomBytes, randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { TARGETS_PER_EXECUTION, type evalRunWorkflow } from '../../../workflows/eval-run';
import {
  blockUntilCancelled,
  continuedAsNewArgs,
  createStubbedEnv,
  retryableSoon,
  scheduledRetryPolicies,
  stubWorker,
  waitFor,
  type StubbedEnv,
} from '../../helpers/stubbed-workflow';
import { stubs } from './eval-run-stubs';

/**
 * The eval-run workflow alone, activities stubbed, on the time-skipping server: targets page by
 * page (100) with bounded concurrency, continue-as-new every TARGETS_PER_EXECUTION targets with
 * the cursor carried over, a target that gives up marked `error` while the run goes on, and a
 * cancel that marks the run cancelled once.
 */
describe('evalRunWorkflow with stubbed activities (time-skipping)', () => {
  let s: StubbedEnv;
  beforeAll(async () => {
    s = await createStubbedEnv(`eval-stub-${randomBytes(4).toString('hex')}`);
  });
  afterAll(() => s?.env.teardown());

  const start = (taskQueue: string, runId: string, concurrency: number) =>
    s.env.client.workflow.start<typeof evalRunWorkflow>('evalRunWorkflow', {
      taskQueue,
      workflowId: `eval-run-${runId}`,
      args: [runId, concurrency],
    });

  async function run(st: ReturnType<typeof stubs>, concurrency = 8) {
    const { worker, taskQueue } = await stubWorker(s, st.activities);
    const runId = randomUUID();
    return worker.runUntil(async () => {
      const handle = await start(taskQueue, runId, concurrency);
      const result = await handle.result().catch((err: unknown) => err);
      const policies = () => scheduledRetryPolicies(s.env, handle.workflowId, handle.firstExecutionRunId);
      return {
        result,
        runId,
        policies,
        handed: await continuedAsNewArgs(s.env, handle.workflowId, handle.firstExecutionRunId),
      };
    });
  }

  it(
    'prepares once, evaluates each target once page by page (100, then ' +
      'the cursor) with at most `concurrency` at once, then completes',
    async () => {
      // The first three evaluations hold their lanes until three are in flight (or 1 s passed): the cap is
      // reached, never passed.
      const st: ReturnType<typeof stubs> = stubs(130, async (t) => {
        if (t <= 't0002') await waitFor(() => st.inFlight() >= 3, 1_000).catch(() => undefined);
      });
      const { result, handed } = await run(st, 3);
      expect(result).toEqual({ status: 'completed' });
      expect(handed).toEqual([]);
      expect(st.log.filter((l) => !l.startsWith('eval:'))).toEqual([
        'prepare',
        'next:null',
        'next:t0099',
        'next:t0129',
        'finish:completed',
      ]);
      expect(st.evals.slice().sort()).toEqual(st.targets);
      expect(st.maxInFlight()).toBe(3);
      // A page is evaluated in full before the next one is read.
      const pages: string[][] = [];
      for (const l of st.log) {
        if (l.startsWith('next:')) pages.push([]);
        else if (l.startsWith('eval:')) pages.at(-1)!.push(l.slice(5));
      }
      expect(pages.map((p) => p.sort())).toEqual([st.targets.slice(0, 100), st.targets.slice(100), []]);
    },
  );

  it(
    `continues as new every ${TARGETS_PER_EXECUTION} targets carrying ` +
      `{prepared, after}: prepares once, no target skipped or repeated`,
    async () => {
      // Exactly two executions' worth: the third run finds nothing left and completes.
      const st = stubs(2 * TARGETS_PER_EXECUTION);
      const { result, runId, handed } = await run(st, 100);
      expect(result).toEqual({ status: 'completed' });
      expect(handed).toEqual([
        [runId, 100, { prepared: true, after: 't0499' }],
        [runId, 100, { prepared: true, after: 't0999' }],
      ]);
      expect(st.log.filter((l) => l === 'prepare')).toHaveLength(1);
      expect(st.evals).toHaveLength(st.targets.length);
      expect(st.evals.slice().sort()).toEqual(st.targets);
      const nexts = st.log.filter((l) => l.startsWith('next:')).map((l) => l.slice(5));
      expect(nexts).toEqual(['null', ...[99, 199, 299, 399, 499, 599, 699, 799, 899, 999].map((i) => st.targets[i])]);
      expect(st.log.filter((l) => l.startsWith('finish:'))).toEqual(['finish:completed']);
      expect(st.log.at(-1)).toBe('finish:completed');
    },
    30_000,
  );

  it('retries a target that fails transiently and marks nothing failed', async () => {
    const st = stubs(5, async (t, attempt) => {
      if (t === 't0003' && attempt < 3) throw retryableSoon('judge answered 503');
    });
    const { result, policies } = await run(st);
    expect(result).toEqual({ status: 'completed' });
    expect(st.attempts.get('t0003')).toEqual([1, 2, 3]);
    // The backoff as scheduled (exponential from 2 s, at most 1 min, 6 attempts); the stub's nextRetryDelay only
    // shortens the wait.
    const p = await policies();
    expect(p.evaluateEvalTarget).toEqual({
      initialInterval: 2,
      backoffCoefficient: 2,
      maximumInterval: 60,
      maximumAttempts: 6,
    });
    expect(p.nextEvalTargets).toMatchObject({ initialInterval: 1, maximumAttempts: 10 });
    expect([...st.attempts.entries()].filter(([t]) => t !== 't0003').every(([, a]) => a.length === 1)).toBe(true);
    expect(st.log.filter((l) => l.startsWith('fail:'))).toEqual([]);
    expect(st.evals.slice().sort()).toEqual(st.targets);
  });

  it(
    'a target that keeps failing gives up after 6 attempts: its ' +
      'items are marked error with the cause and the run completes',
    async () => {
      const st = stubs(5, async (t) => {
        if (t === 't0002') throw retryableSoon('judge answered 503');
      });
      const { result } = await run(st);
      expect(result).toEqual({ status: 'completed' });
      expect(st.attempts.get('t0002')).toEqual([1, 2, 3, 4, 5, 6]);
      expect(st.log.filter((l) => l.startsWith('fail:'))).toEqual([
        'fail:t0002:gave up after retries: judge answered 503',
      ]);
      expect(st.evals.slice().sort()).toEqual(['t0000', 't0001', 't0003', 't0004']);
      expect(st.log.at(-1)).toBe('finish:completed');
    },
  );

  it(
    'a non-retryable failure of a target is not retried: its ' +
      'items are marked error and the run goes on to complete',
    async () => {
      const st = stubs(5, async (t) => {
        if (t === 't0001') throw ApplicationFailure.nonRetryable('the evaluator was deleted');
      });
      const { result } = await run(st);
      expect(result).toEqual({ status: 'completed' });
      expect(st.attempts.get('t0001')).toEqual([1]);
      expect(st.log.filter((l) => l.startsWith('fail:'))).toEqual([
        'fail:t0001:gave up after retries: the evaluator was deleted',
      ]);
      expect(st.log.filter((l) => l.startsWith('finish:'))).toEqual(['finish:completed']);
    },
  );

  it('retries reading a page that fails transiently and loses no target', async () => {
    const nextAttempts: number[] = [];
    const st = stubs(150, undefined, {
      next: async (attempt) => {
        nextAttempts.push(attempt);
        if (nextAttempts.length === 1) throw new Error('connection reset');
        if (nextAttempts.length === 2) throw retryableSoon('connection reset');
      },
    });
    const { result } = await run(st);
    expect(result).toEqual({ status: 'completed' });
    expect(nextAttempts).toEqual([1, 2, 3, 1, 1]);
    expect(st.evals.slice().sort()).toEqual(st.targets);
  });

  it('a preparation that fails for good fails the workflow with the cause; nothing is read or evaluated', async () => {
    const st = stubs(5, undefined, {
      prepare: async () => {
        throw ApplicationFailure.nonRetryable('eval run not found');
      },
    });
    const { result } = await run(st);
    expect(result).toBeInstanceOf(WorkflowFailedError);
    const cause = (result as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ActivityFailure);
    expect((cause?.cause as Error | undefined)?.message).toBe('eval run not found');
    expect(st.log.filter((l) => !l.startsWith('finish:'))).toEqual(['prepare']);
  });

  /** A run whose second page cannot be read (non-retryable, or 10 attempts spent). */
  const failingSecondPage = () =>
    stubs(150, undefined, {
      next: async (_attempt, after) => {
        if (after === 't0099') throw ApplicationFailure.nonRetryable('relation "eval_run_items" does not exist');
      },
    });

  it(
    'a page read that fails for good fails the workflow ' + 'with the cause, after the page before it was evaluated',
    async () => {
      const st = failingSecondPage();
      const { result } = await run(st);
      expect(result).toBeInstanceOf(WorkflowFailedError);
      expect(((result as WorkflowFailedError).cause?.cause as Error | undefined)?.message).toBe(
        'relation "eval_run_items" does not exist',
      );
      expect(st.evals.slice().sort()).toEqual(st.targets.slice(0, 100));
      expect(st.log.filter((l) => !l.startsWith('eval:') && !l.startsWith('finish:'))).toEqual([
        'prepare',
        'next:null',
        'next:t0099',
      ]);
    },
  );

  // A failure no retry mends ends the run failed (it once stayed `running` forever).
  it('a run whose workflow fails for good is recorded failed (finishEvalRun "failed", once)', async () => {
    const st = failingSecondPage();
    await run(st);
    expect(st.log.filter((l) => l.startsWith('finish:'))).toEqual([
      'finish:failed',
      'finish:error:relation "eval_run_items" does not exist',
    ]);
  });

  // Last: its evaluations, cancelled without waiting (TRY_CANCEL), complete after the workflow closed, and
  // the test server then keeps time skipping locked for the rest of the file (retry backoffs run in real time).
  it(
    'a cancel mid-run cancels the evaluations in flight, ' + 'marks the run cancelled once, and starts nothing after',
    async () => {
      const stopped: string[] = [];
      const st = stubs(300, async (t) => {
        if (t >= 't0150') await blockUntilCancelled(() => stopped.push(t));
      });
      const { worker, taskQueue } = await stubWorker(s, st.activities);
      const { result } = await worker.runUntil(async () => {
        const handle = await start(taskQueue, randomUUID(), 4);
        await waitFor(() => [...st.attempts.keys()].filter((t) => t >= 't0150').length === 4);
        st.log.push('CANCEL');
        await handle.cancel();
        return { result: await handle.result().catch((err: unknown) => err) };
      });
      expect(result).toBeInstanceOf(WorkflowFailedError);
      expect((result as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(st.log.slice(st.log.indexOf('CANCEL'))).toEqual(['CANCEL', 'finish:cancelled']);
      expect(st.log.filter((l) => l.startsWith('fail:'))).toEqual([]);
      expect([...st.attempts.keys()].sort()).toEqual(st.targets.slice(0, 154));
      expect(st.evals).toEqual(expect.not.arrayContaining(['t0150', 't0151', 't0152', 't0153']));
      await waitFor(() => stopped.length === 4);
    },
  );
});
