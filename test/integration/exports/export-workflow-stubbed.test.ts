import { randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Activities } from '../../../activities';
import { PARTS_PER_EXECUTION, type exportWorkflow } from '../../../workflows/export';
import { suiteBundle } from '../../helpers/stubbed-workflow';
import { quietTemporalRuntime } from '../webhooks/fixtures';

type Stubbed = Pick<Activities, 'prepareExport' | 'writeExportPart' | 'finalizeExport' | 'endExport'>;

/**
 * The export workflow alone, activities stubbed, on the time-skipping server: parts across
 * continue-as-new keep the export running and lose no part, a failure or a cancel ends it once.
 */
describe('exportWorkflow with stubbed activities (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleOption;
  const taskQueue = `export-stub-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    quietTemporalRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    bundle = await suiteBundle();
  });
  afterAll(() => env?.teardown());

  function stubs(write: (part: number) => Promise<{ cursor: string | null; rows: number }>) {
    const calls = { parts: [] as number[], finalized: [] as number[], ended: [] as string[] };
    const activities: Stubbed = {
      prepareExport: async () => ({ proceed: true }) as Awaited<ReturnType<Activities['prepareExport']>>,
      writeExportPart: async (_id, part) =>
        (calls.parts.push(part), write(part)) as ReturnType<Activities['writeExportPart']>,
      finalizeExport: async (_id, parts) => void calls.finalized.push(parts),
      endExport: async (_id, status) => void calls.ended.push(status),
    };
    return { calls, activities };
  }
  const start = (workflowId: string) =>
    env.client.workflow.start<typeof exportWorkflow>('exportWorkflow', {
      taskQueue,
      workflowId,
      args: [randomUUID(), taskQueue],
    });

  it(
    'continues as new after PARTS_PER_EXECUTION parts ' + 'and completes: every part once, never marked failed',
    async () => {
      const total = PARTS_PER_EXECUTION + 5;
      const { calls, activities } = stubs(async (part) => ({
        cursor: part + 1 < total ? `c${part + 1}` : null,
        rows: 10,
      }));
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        activities,
      });
      const handle = await start(`export-${randomUUID()}`);
      const result = await worker.runUntil(handle.result());
      expect(result).toEqual({ status: 'completed', rows: total * 10 });
      expect(calls.parts).toEqual(Array.from({ length: total }, (_, i) => i));
      expect(calls.finalized).toEqual([total]);
      expect(calls.ended).toEqual([]);
      // The first run handed over to a second one rather than finishing.
      const first = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
      expect(first.events?.some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(true);
    },
    60_000,
  );

  it('a part that fails for good ends the export as failed, once', async () => {
    const { calls, activities } = stubs(async (part) => {
      if (part === 2) throw ApplicationFailure.nonRetryable('disk full');
      return { cursor: `c${part + 1}`, rows: 1 };
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities,
    });
    await expect(worker.runUntil(async () => (await start(`export-${randomUUID()}`)).result())).rejects.toThrow();
    expect(calls.ended).toEqual(['failed']);
    expect(calls.finalized).toEqual([]);
  }, 60_000);

  it('a cancel during a part ends the export as cancelled, once', async () => {
    let release!: () => void;
    const { calls, activities } = stubs(async (part) => {
      if (part === 1) await new Promise<void>((r) => (release = r));
      return { cursor: `c${part + 1}`, rows: 1 };
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities,
    });
    await worker.runUntil(async () => {
      const handle = await start(`export-${randomUUID()}`);
      while (!calls.parts.includes(1)) await new Promise((r) => setTimeout(r, 20));
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
      release();
    });
    expect(calls.ended).toEqual(['cancelled']);
    expect(calls.finalized).toEqual([]);
  }, 60_000);
});
