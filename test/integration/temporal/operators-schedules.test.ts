import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../../src/logger';
import { ensureSchedules, scheduleId } from '../../../src/temporal/schedules';
import { waitUntil } from '../webhooks/fixtures';
import { expectRecipeList, runRecipe } from './recipes';

/**
 * docs/operators.md's schedule recipes, run as written with the `temporal` CLI against the real dev
 * server, over a schedule whose workflow is never polled (no worker: its first run holds the schedule
 * up). The delivery recipes are in operators-recipes.test.ts.
 */
describe('operator recipes (docs/operators.md) on the dev server', () => {
  const address = process.env.TEMPORAL_ADDRESS!;
  const tq = `ops-${randomBytes(4).toString('hex')}`;
  const queues = { noWorker: `${tq}-no-worker` };
  let client: Client;
  const probe = {
    name: 'ops-recipe-probe',
    note: 'never polled: its first run holds the schedule up',
    spec: { intervals: [{ every: '1 second' }] },
    workflowType: 'neverPolledWorkflow',
  };
  const expectListed = (recipe: string, vars: Record<string, string>, expected: string[]) =>
    expectRecipeList(address, recipe, vars, expected);

  beforeAll(async () => {
    client = new Client({ connection: await Connection.connect({ address }) });
    await ensureSchedules(client, queues.noWorker, [probe], createLogger('silent'));
  });

  afterAll(async () => {
    const schedule = client?.schedule.getHandle(scheduleId(queues.noWorker, probe.name));
    const desc = await schedule?.describe().catch(() => undefined);
    await schedule?.delete().catch(() => undefined);
    for (const r of desc?.info.runningActions ?? [])
      await client.workflow
        .getHandle(r.workflow.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    await client?.connection.close();
  });

  it(
    'which schedules ran late: recent actions with scheduled and actual times, ' +
      'ticks skipped behind a run that never ends',
    async () => {
      const id = scheduleId(queues.noWorker, probe.name);
      type Described = {
        info: {
          overlapSkipped?: string;
          recentActions: { scheduleTime: string; actualTime: string }[];
          runningWorkflows: { workflowId: string }[];
        };
      };
      let detail: Described | undefined;
      await waitUntil(
        async () => {
          detail = (await runRecipe('schedule-detail', address, { SCHEDULE_ID: id })) as Described;
          return Number(detail.info.overlapSkipped ?? 0) >= 2;
        },
        15_000,
        'ticks skipped',
      );
      const [first] = detail!.info.recentActions;
      expect(Date.parse(first!.actualTime) - Date.parse(first!.scheduleTime)).toBeLessThan(5_000);
      const listed = (await runRecipe('schedules', address, {})) as {
        scheduleId: string;
        info: { recentActions?: unknown[] };
      }[];
      expect(listed.find((s) => s.scheduleId === id)?.info.recentActions).toHaveLength(1);
      await expectListed(
        'runs-of-schedule',
        { SCHEDULE_ID: id },
        detail!.info.runningWorkflows.map((w) => w.workflowId),
      );
      expect(
        await (
          await client.workflow.getHandle(detail!.info.runningWorkflows[0]!.workflowId).describe()
        ).staticSummary(),
      ).toBe('ops-recipe-probe (every 1 second): never polled: its first run holds the schedule up');
    },
  );
});
