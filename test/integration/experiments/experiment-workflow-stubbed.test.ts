import { randomBytes, randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { experimentWorkflow } from '../../../workflows/experiment';
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
import { rowsOf, stubs } from './experiment-stubs';

/** Items per execution before the workflow continues as new (workflows/experiment.ts PER_EXECUTION, not exported). */
const PER_EXECUTION = 500;

/**
 * The experiment workflow alone, activities stubbed, on the time-skipping server: pending
 * (item, repetition) runs page by page (100, keyset cursor `item#rr`) with bounded concurrency,
 * continue-as-new every 500 carrying the cursor, an item run that gives up marked failed while the
 * experiment goes on, and a cancel that marks the experiment cancelled once.
 */
describe('experimentWorkflow with stubbed activities (time-skipping)', () => {
  let s: StubbedEnv;
  beforeAll(async () => {
    s = await createStubbedEnv(`exp-stub-${randomBytes(4).toString('hex')}`);
  });
  afterAll(() => s?.env.teardown());

  const start = (taskQueue: string, id: string, concurrency: number) =>
    s.env.client.workflow.start<typeof experimentWorkflow>('experimentWorkflow', {
      taskQueue,
      workflowId: `experiment-${id}`,
      args: [id, concurrency],
    });

  async function run(st: ReturnType<typeof stubs>, concurrency = 8) {
    const { worker, taskQueue } = await stubWorker(s, st.activities);
    const id = randomUUID();
    return worker.runUntil(async () => {
      const handle = await start(taskQueue, id, concurrency);
      const result = await handle.result().catch((err: unknown) => err);
      const policies = () => scheduledRetryPolicies(s.env, handle.workflowId, handle.firstExecutionRunId);
      return {
        result,
        id,
        policies,
        handed: await continuedAsNewArgs(s.env, handle.workflowId, handle.firstExecutionRunId),
      };
    });
  }
  const fails = (log: string[]) => log.filter((l) => l.startsWith('fail:'));

  it('runs every (item, repetition) once page by page with at most `concurrency` at once, then completes', async () => {
    // The first three item runs hold their lanes until three are in flight (or 1 s passed): the cap is reached, never
    // passed.
    const st: ReturnType<typeof stubs> = stubs(rowsOf(65), async (row) => {
      if (row.key <= 'i001#01') await waitFor(() => st.inFlight() >= 3, 1_000).catch(() => undefined);
    });
    const { result, handed } = await run(st, 3);
    expect(result).toEqual({ status: 'completed' });
    expect(handed).toEqual([]);
    expect(st.log.filter((l) => !l.startsWith('run:'))).toEqual([
      'next:null',
      'next:i049#02',
      'next:i064#02',
      'finish:completed',
    ]);
    expect(st.ran.slice().sort()).toEqual(st.keys);
    expect(st.maxInFlight()).toBe(3);
    // A page is run in full before the next one is read.
    const pages: string[][] = [];
    for (const l of st.log) {
      if (l.startsWith('next:')) pages.push([]);
      else if (l.startsWith('run:')) pages.at(-1)!.push(l.slice(4));
    }
    expect(pages.map((p) => p.sort())).toEqual([st.keys.slice(0, 100), st.keys.slice(100), []]);
  });

  it(
    `continues as new every ${PER_EXECUTION} runs carrying ` + `the cursor: no (item, repetition) skipped or repeated`,
    async () => {
      // Exactly two executions' worth: the third run finds nothing pending and completes.
      const st = stubs(rowsOf(PER_EXECUTION));
      const { result, id, handed } = await run(st, 100);
      expect(result).toEqual({ status: 'completed' });
      expect(handed).toEqual([
        [id, 100, 'i249#02'],
        [id, 100, 'i499#02'],
      ]);
      expect(st.ran).toHaveLength(st.keys.length);
      expect(st.ran.slice().sort()).toEqual(st.keys);
      const nexts = st.log.filter((l) => l.startsWith('next:')).map((l) => l.slice(5));
      expect(nexts).toEqual(['null', ...[99, 199, 299, 399, 499, 599, 699, 799, 899, 999].map((i) => st.keys[i])]);
      expect(st.log.filter((l) => l.startsWith('finish:'))).toEqual(['finish:completed']);
      expect(st.log.at(-1)).toBe('finish:completed');
    },
    30_000,
  );

  it('retries an item run that fails transiently and marks nothing failed', async () => {
    const st = stubs(rowsOf(3), async (row, attempt) => {
      if (row.key === 'i001#02' && attempt < 3) throw retryableSoon('model answered 429');
    });
    const { result, policies } = await run(st);
    expect(result).toEqual({ status: 'completed' });
    expect(st.attempts.get('i001#02')).toEqual([1, 2, 3]);
    // The backoff as scheduled (exponential from 2 s, at most 1 min, 6 attempts); the stub's nextRetryDelay only
    // shortens the wait.
    const p = await policies();
    expect(p.runExperimentItem).toEqual({
      initialInterval: 2,
      backoffCoefficient: 2,
      maximumInterval: 60,
      maximumAttempts: 6,
    });
    expect(p.nextExperimentItems).toMatchObject({ maximumAttempts: 10 });
    expect([...st.attempts.values()].filter((a) => a.length === 1)).toHaveLength(5);
    expect(fails(st.log)).toEqual([]);
    expect(st.ran.slice().sort()).toEqual(st.keys);
  });

  it(
    'an item run that keeps failing gives up after 6 attempts: it ' +
      'is marked failed with the cause and the experiment completes',
    async () => {
      const st = stubs(rowsOf(3), async (row) => {
        if (row.key === 'i002#01') throw retryableSoon('model answered 503');
      });
      const { result } = await run(st);
      expect(result).toEqual({ status: 'completed' });
      expect(st.attempts.get('i002#01')).toEqual([1, 2, 3, 4, 5, 6]);
      expect(fails(st.log)).toEqual(['fail:i002#1:gave up after retries: model answered 503']);
      expect(st.ran.slice().sort()).toEqual(st.keys.filter((k) => k !== 'i002#01'));
      expect(st.log.at(-1)).toBe('finish:completed');
    },
  );

  it(
    'a non-retryable failure of an item run is not retried: it ' +
      'is marked failed and the experiment goes on to complete',
    async () => {
      const st = stubs(rowsOf(3), async (row) => {
        if (row.key === 'i000#02') throw ApplicationFailure.nonRetryable('the prompt version is gone');
      });
      const { result } = await run(st);
      expect(result).toEqual({ status: 'completed' });
      expect(st.attempts.get('i000#02')).toEqual([1]);
      expect(fails(st.log)).toEqual(['fail:i000#2:gave up after retries: the prompt version is gone']);
      expect(st.log.filter((l) => l.startsWith('finish:'))).toEqual(['finish:completed']);
    },
  );

  it('retries reading a page that fails transiently and loses no item', async () => {
    const nextAttempts: number[] = [];
    const st = stubs(rowsOf(75), undefined, async (attempt) => {
      nextAttempts.push(attempt);
      if (nextAttempts.length === 1) throw new Error('connection reset');
      if (nextAttempts.length === 2) throw retryableSoon('connection reset');
    });
    const { result } = await run(st);
    expect(result).toEqual({ status: 'completed' });
    expect(nextAttempts).toEqual([1, 2, 3, 1, 1]);
    expect(st.ran.slice().sort()).toEqual(st.keys);
  });

  /** An experiment whose second page cannot be read (non-retryable, or 10 attempts spent). */
  const failingSecondPage = () =>
    stubs(rowsOf(75), undefined, async (_attempt, after) => {
      if (after === 'i049#02') throw ApplicationFailure.nonRetryable('relation "experiment_items" does not exist');
    });

  it(
    'a page read that fails for good fails the workflow ' + 'with the cause, after the page before it was run',
    async () => {
      const st = failingSecondPage();
      const { result } = await run(st);
      expect(result).toBeInstanceOf(WorkflowFailedError);
      const cause = (result as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ActivityFailure);
      expect((cause?.cause as Error | undefined)?.message).toBe('relation "experiment_items" does not exist');
      expect(st.ran.slice().sort()).toEqual(st.keys.slice(0, 100));
      expect(st.log.filter((l) => !l.startsWith('run:') && !l.startsWith('finish:'))).toEqual([
        'next:null',
        'next:i049#02',
      ]);
    },
  );

  // A failure no retry mends ends the run failed (it once stayed `running` forever).
  it('an experiment whose workflow fails for good is recorded failed (finishExperiment "failed", once)', async () => {
    const st = failingSecondPage();
    await run(st);
    expect(st.log.filter((l) => l.startsWith('finish:'))).toEqual([
      'finish:failed',
      'finish:error:relation "experiment_items" does not exist',
    ]);
  });

  // Last: its item runs, cancelled without waiting (TRY_CANCEL), complete after the workflow closed, and
  // the test server then keeps time skipping locked for the rest of the file (retry backoffs run in real time).
  it(
    'a cancel mid-run cancels the item runs in flight, marks ' +
      'the experiment cancelled once, and starts nothing after',
    async () => {
      const stopped: string[] = [];
      const st = stubs(rowsOf(150), async (row) => {
        if (row.item_id >= 'i075') await blockUntilCancelled(() => stopped.push(row.key));
      });
      const { worker, taskQueue } = await stubWorker(s, st.activities);
      const result = await worker.runUntil(async () => {
        const handle = await start(taskQueue, randomUUID(), 4);
        await waitFor(() => st.attempts.size === 154);
        st.log.push('CANCEL');
        await handle.cancel();
        return handle.result().catch((err: unknown) => err);
      });
      expect(result).toBeInstanceOf(WorkflowFailedError);
      expect((result as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(st.log.slice(st.log.indexOf('CANCEL'))).toEqual(['CANCEL', 'finish:cancelled']);
      expect(fails(st.log)).toEqual([]);
      expect([...st.attempts.keys()].sort()).toEqual(st.keys.slice(0, 154));
      expect(st.ran.slice().sort()).toEqual(st.keys.slice(0, 150));
      await waitFor(() => stopped.length === 4);
    },
  );
});
