import { randomBytes, randomUUID } from 'node:crypto';
import { ScheduleNotFoundError } from '@temporalio/client';
import { syncRuleSchedule } from '../../../src/alerts/schedules';
import { scheduleId } from '../../../src/temporal/schedules';
import { freePort } from '../../../src/util/net';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { waitUntil } from '../webhooks/fixtures';
import { createRule } from './helpers';

/**
 * Rules written while Temporal is unreachable are stored and answered (schedule `pending`); the
 * worker's reconcile at start creates their schedules, and the `alert-reconcile` schedule deletes
 * schedules whose rule is gone.
 */
describe('alert schedules reconcile after a Temporal outage', () => {
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  let down: TestApp;
  let worker: TestApp | undefined;
  let t: SeededTenant;
  const as = () => ({ token: t.admin.token, orgId: t.orgId });

  beforeAll(async () => {
    // Nothing listens on this port: every Temporal call of the api fails.
    down = await startTestApp({
      role: 'api',
      env: { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, TEMPORAL_TASK_QUEUE: taskQueue },
    });
    t = await seedTenant(down);
  });
  afterAll(async () => {
    await worker?.stop();
    await down?.stop();
  });

  it(
    'stores rules while Temporal is down, then the worker ' + 'reconciles their schedules; orphans are deleted',
    async () => {
      const started = Date.now();
      const a = await createRule(down, t, { type: 'cost', threshold: 1, window_minutes: 30 });
      // Bounded by the 3 s deadline (generous here: CI's two cores run many suites at once).
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(a.schedule).toMatchObject({ status: 'pending', error: expect.stringMatching(/Temporal unavailable/) });
      // Right after a failure the api does not wait on Temporal again ("not tried").
      const b = await createRule(down, t, { type: 'request_count', operator: 'lt', threshold: 1, window_minutes: 15 });
      expect(b.schedule).toMatchObject({
        status: 'pending',
        error: expect.stringMatching(/Temporal unavailable: not tried/),
      });
      const off = await api(down, 'PATCH', `/api/v1/alerts/${b.id}`, { ...as(), body: { is_active: false } });
      expect(off.status).toBe(200);
      expect(off.body.data).toMatchObject({ is_active: false, schedule: { status: 'pending' } });
      const gone = await createRule(down, t, { type: 'cost', threshold: 1 });
      expect((await api(down, 'DELETE', `/api/v1/alerts/${gone.id}`, as())).status).toBe(200);

      // Temporal is reachable for the worker: its start-up reconcile creates what is missing.
      worker = await startTestApp({ role: 'worker', database: down.database, env: { TEMPORAL_TASK_QUEUE: taskQueue } });
      const client = worker.runtime.ctx.temporal.client;
      const describe = (id: string) => client.schedule.getHandle(id).describe();
      await waitUntil(
        async () => {
          const rules = (await api(down, 'GET', '/api/v1/alerts', as())).body.data as {
            schedule: { status: string };
          }[];
          return rules.every((r) => r.schedule.status === 'synced');
        },
        30_000,
        'rules synced',
      );
      expect((await describe(a.schedule.id)).state.paused).toBe(false);
      expect((await describe(b.schedule.id)).state.paused).toBe(true);
      expect((await describe(b.schedule.id)).spec.intervals![0]!.every).toBe(2 * 60_000);
      await expect(describe(gone.schedule.id)).rejects.toBeInstanceOf(ScheduleNotFoundError);

      // A schedule whose rule no longer exists (deleted while Temporal was down) is removed by the
      // alert-reconcile schedule's workflow.
      const orphan = randomUUID();
      await syncRuleSchedule(client, taskQueue, {
        id: orphan,
        name: 'orphan',
        window_minutes: 5,
        is_active: true,
        org_id: t.orgId,
      });
      await describe(scheduleId(taskQueue, `alert-rule-${orphan}`));
      const reconcile = client.schedule.getHandle(scheduleId(taskQueue, 'alert-reconcile'));
      await waitUntil(async () => describeOk(() => reconcile.describe()), 20_000, 'alert-reconcile schedule');
      await waitUntil(
        async () => {
          // Schedule listing is eventually consistent: trigger until a run has seen (and deleted) the orphan.
          await reconcile.trigger();
          return !(await describeOk(() => describe(scheduleId(taskQueue, `alert-rule-${orphan}`))));
        },
        30_000,
        'orphan deleted',
      );
    },
  );
});

async function describeOk(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return false;
    throw err;
  }
}
