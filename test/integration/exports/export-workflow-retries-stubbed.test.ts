import { randomBytes, randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ExportActivities } from '../../../activities/exports';
import { PARTS_PER_EXECUTION, type exportWorkflow } from '../../../workflows/export';
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

type Stubbed = Pick<ExportActivities, 'prepareExport' | 'writeExportPart' | 'finalizeExport' | 'endExport'>;
type Write = (part: number, attempt: number) => Promise<void>;

/**
 * The export workflow alone, activities stubbed, on the time-skipping server: the retry, give-up,
 * not-proceeding and later-run cancel cases that export-workflow-stubbed.test.ts (continue-as-new,
 * one non-retryable part, one cancel) does not cover. Part n answers cursor `c<n+1>` and 10 rows.
 */
describe('exportWorkflow retries, failures and cancels across runs (stubbed, time-skipping)', () => {
  let s: StubbedEnv;
  beforeAll(async () => {
    s = await createStubbedEnv(`export-retry-${randomBytes(4).toString('hex')}`);
  });
  afterAll(() => s?.env.teardown());

  function stubs(
    total: number,
    write: Write = async () => undefined,
    opts: { proceed?: boolean; finalize?: (attempt: number) => Promise<void> } = {},
  ) {
    const log: string[] = [];
    const writes: [number, string | null, number, number][] = [];
    const ended: [string, string | undefined][] = [];
    const activities: Stubbed = {
      prepareExport: async () => (log.push('prepare'), { proceed: opts.proceed ?? true }),
      writeExportPart: async (_id, part, cursor, rowsBefore) => {
        writes.push([part, cursor, rowsBefore, attemptNow()]);
        await write(part, attemptNow());
        log.push(`part:${part}`);
        return { cursor: part + 1 < total ? `c${part + 1}` : null, rows: 10 };
      },
      finalizeExport: async (_id, parts) => {
        await opts.finalize?.(attemptNow());
        log.push(`finalize:${parts}`);
      },
      endExport: async (_id, status, error) => {
        log.push(`end:${status}`);
        ended.push([status, error]);
      },
    };
    return { log, writes, ended, activities };
  }

  async function run(st: ReturnType<typeof stubs>, during?: (workflowId: string) => Promise<void>) {
    const { worker, taskQueue } = await stubWorker(s, st.activities);
    const exportId = randomUUID();
    return worker.runUntil(async () => {
      const handle = await s.env.client.workflow.start<typeof exportWorkflow>('exportWorkflow', {
        taskQueue,
        workflowId: `export-${exportId}`,
        args: [exportId, taskQueue],
      });
      await during?.(handle.workflowId);
      const result = await handle.result().catch((err: unknown) => err);
      const policies = () => scheduledRetryPolicies(s.env, handle.workflowId, handle.firstExecutionRunId);
      return {
        result,
        exportId,
        taskQueue,
        policies,
        handed: await continuedAsNewArgs(s.env, handle.workflowId, handle.firstExecutionRunId),
      };
    });
  }

  it(
    'retries a part that fails transiently from its own ' + 'cursor and row count: no row counted twice, none missing',
    async () => {
      const st = stubs(5, async (part, attempt) => {
        if (part === 3 && attempt === 1) throw new Error('object store answered 503');
        if (part === 3 && attempt === 2) throw retryableSoon('object store answered 503');
      });
      const r = await run(st);
      expect(r.result).toEqual({ status: 'completed', rows: 50 });
      expect(st.writes).toEqual([
        [0, null, 0, 1],
        [1, 'c1', 10, 1],
        [2, 'c2', 20, 1],
        [3, 'c3', 30, 1],
        [3, 'c3', 30, 2],
        [3, 'c3', 30, 3],
        [4, 'c4', 40, 1],
      ]);
      expect(st.log.slice(-2)).toEqual(['part:4', 'finalize:5']);
      expect(st.ended).toEqual([]);
      const p = await r.policies();
      expect(p.writeExportPart).toEqual({
        initialInterval: 2,
        backoffCoefficient: 2,
        maximumInterval: 60,
        maximumAttempts: 8,
      });
      expect(p.prepareExport).toMatchObject({ initialInterval: 1, maximumAttempts: 5 });
    },
  );

  it(
    'a part that keeps failing gives up after 8 attempts: the ' +
      'export is marked failed once with the cause, never finalized',
    async () => {
      const st = stubs(5, async (part) => {
        if (part === 1) throw retryableSoon('object store answered 503');
      });
      const r = await run(st);
      expect(r.result).toBeInstanceOf(WorkflowFailedError);
      expect((r.result as WorkflowFailedError).cause).toBeInstanceOf(ActivityFailure);
      expect(st.writes.filter(([part]) => part === 1).map(([, , , attempt]) => attempt)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8,
      ]);
      expect(st.writes.filter(([part]) => part !== 1)).toEqual([[0, null, 0, 1]]);
      expect(st.ended).toEqual([['failed', 'object store answered 503']]);
      expect(st.log.filter((l) => l.startsWith('finalize'))).toEqual([]);
    },
  );

  it('a finalize that fails for good marks the export failed once, after every part was written', async () => {
    const st = stubs(3, undefined, {
      finalize: async () => {
        throw ApplicationFailure.nonRetryable('the export was deleted', 'ExportStopped');
      },
    });
    const r = await run(st);
    expect(r.result).toBeInstanceOf(WorkflowFailedError);
    expect(st.log).toEqual(['prepare', 'part:0', 'part:1', 'part:2', 'end:failed']);
    expect(st.ended).toEqual([['failed', 'the export was deleted']]);
  });

  it(
    'an export that must not proceed (cancelled or finished before it ' +
      'started) ends cancelled with 0 rows, writing and marking nothing',
    async () => {
      const st = stubs(3, undefined, { proceed: false });
      const r = await run(st);
      expect(r.result).toEqual({ status: 'cancelled', rows: 0 });
      expect(st.log).toEqual(['prepare']);
    },
  );

  // Last: the part cancelled without waiting (TRY_CANCEL) completes after the workflow closed, and
  // the test server then keeps time skipping locked for the rest of the file.
  it(
    'a cancel in a later run (after continue-as-new) marks ' + 'the export cancelled once and writes nothing after',
    async () => {
      const blocked = PARTS_PER_EXECUTION + 2;
      const st = stubs(PARTS_PER_EXECUTION + 10, async (part) => {
        if (part === blocked) await blockUntilCancelled();
      });
      const r = await run(st, async (workflowId) => {
        await waitFor(() => st.writes.some(([part]) => part === blocked), 20_000);
        st.log.push('CANCEL');
        await s.env.client.workflow.getHandle(workflowId).cancel();
      });
      expect(r.result).toBeInstanceOf(WorkflowFailedError);
      expect((r.result as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(r.handed).toEqual([
        [
          r.exportId,
          r.taskQueue,
          { part: PARTS_PER_EXECUTION, cursor: `c${PARTS_PER_EXECUTION}`, rows: PARTS_PER_EXECUTION * 10 },
        ],
      ]);
      expect(st.writes.map(([part]) => part)).toEqual(Array.from({ length: blocked + 1 }, (_, i) => i));
      expect(st.log.slice(st.log.indexOf('CANCEL'))).toEqual(['CANCEL', 'end:cancelled']);
      expect(st.ended).toEqual([['cancelled', undefined]]);
    },
    30_000,
  );
});
