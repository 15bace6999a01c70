import { createHmac } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { waitUntil } from '../webhooks/fixtures';
import { createRule, MIN, newProject, seed } from './helpers';

/**
 * End to end on the suite's real Temporal server: the rule's schedule follows the rule (pause,
 * unpause, update, delete), a run of the schedule evaluates through alertEvaluationWorkflow, and
 * alert.triggered reaches an HTTPS receiver once, signed, with the spec body.
 */
describe('alert schedules and alert.triggered delivery', () => {
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const schedule = (id: string) => app.runtime.ctx.temporal.client.schedule.getHandle(id);

  beforeAll(async () => {
    const { caFile } = await testCertificates();
    receiver = await startHttpsReceiver();
    app = await startTestApp({
      role: 'all',
      env: { WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_CA_FILE: caFile, WEBHOOK_DISPATCH_POLL_MS: '500' },
    });
    t = await seedTenant(app, { name: 'Delivery Org' });
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it(
    'each rule owns a schedule: created with the rule, paused and ' +
      'unpaused with is_active, updated on edit, deleted with the rule',
    async () => {
      const rule = await createRule(app, t, { type: 'cost', threshold: 1, window_minutes: 5 });
      expect(rule.schedule).toEqual({
        id: `${app.config.TEMPORAL_TASK_QUEUE}/alert-rule-${rule.id}`,
        interval_minutes: 1,
        status: 'synced',
        error: null,
      });
      let d = await schedule(rule.schedule.id).describe();
      expect(d.spec.intervals).toEqual([expect.objectContaining({ every: MIN })]);
      expect(d.state.paused).toBe(false);
      expect(d.policies).toMatchObject({ overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: MIN });
      expect(d.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'alertEvaluationWorkflow',
        args: [rule.id],
        taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      });

      expect(
        (await api(app, 'PATCH', `/api/v1/alerts/${rule.id}`, { ...as(), body: { is_active: false } })).status,
      ).toBe(200);
      expect((await schedule(rule.schedule.id).describe()).state.paused).toBe(true);
      const on = await api(app, 'PATCH', `/api/v1/alerts/${rule.id}`, {
        ...as(),
        body: { is_active: true, window_minutes: 60 },
      });
      expect(on.body.data.schedule).toMatchObject({ status: 'synced', interval_minutes: 5 });
      d = await schedule(rule.schedule.id).describe();
      expect(d.state.paused).toBe(false);
      expect(d.spec.intervals).toEqual([expect.objectContaining({ every: 5 * MIN })]);

      expect((await api(app, 'DELETE', `/api/v1/alerts/${rule.id}`, as())).status).toBe(200);
      await expect(schedule(rule.schedule.id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
      expect((await api(app, 'GET', `/api/v1/alerts/${rule.id}`, as())).status).toBe(404);
    },
  );

  it('a run of the schedule delivers alert.triggered exactly once, signed, with the spec body', async () => {
    const hook = await api(app, 'POST', '/api/v1/webhooks', {
      ...as(),
      body: { name: 'alerts', url: `${receiver.url}/alerts`, events: ['alert.triggered'] },
    });
    expect(hook.status).toBe(201);
    const p = await newProject(app, t);
    await seed(app, t, p, 3, Date.now() - 3 * MIN, { cost_usd: 0.5 });
    const rule = await createRule(app, t, {
      name: 'Spend',
      type: 'cost',
      threshold: 1,
      project_id: p,
      window_minutes: 15,
      cooldown_minutes: 60,
    });
    const handle = schedule(rule.schedule.id);
    const runs = async (n: number) =>
      waitUntil(
        async () =>
          (await app.database.db('alert_states').where({ rule_id: rule.id }).first())?.last_evaluated_at &&
          (await handle.describe()).info.recentActions.length >= n,
        30_000,
        `${n} runs`,
      );
    await handle.trigger();
    await runs(1);
    const [req] = await receiver.waitFor(1, 30_000);
    // Two more runs while still triggered: no second notification.
    await handle.trigger();
    await waitUntil(async () => (await handle.describe()).info.recentActions.length >= 2, 30_000, 'second run');
    const wf = app.runtime.ctx.temporal.client.workflow.getHandle(
      (await handle.describe()).info.recentActions[1]!.action.workflow.workflowId,
    );
    expect(await wf.result()).toMatchObject({ ruleId: rule.id, notified: 0 });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests).toHaveLength(1);

    expect(req!.headers['x-service-signature']).toBe(
      `sha256=${createHmac('sha256', hook.body.data.secret).update(req!.raw).digest('hex')}`,
    );
    const body = JSON.parse(req!.raw.toString('utf8'));
    expect(Object.keys(body).sort()).toEqual(['alert', 'event', 'organization', 'timestamp', 'webhook_id']);
    expect(body).toMatchObject({
      event: 'alert.triggered',
      webhook_id: hook.body.data.id,
      alert: { id: rule.id, name: 'Spend', type: 'cost', threshold: 1, current_value: 1.5, window_minutes: 15 },
      organization: { name: 'Delivery Org' },
    });
    const delivery = await app.database.db('webhook_deliveries').where({ webhook_id: hook.body.data.id }).first();
    expect(delivery).toMatchObject({
      status: 'delivered',
      event_type: 'alert.triggered',
      body: req!.raw.toString('utf8'),
    });
    const events = await api(app, 'GET', `/api/v1/alerts/${rule.id}/events`, as());
    expect(events.body.data).toEqual([
      expect.objectContaining({ kind: 'triggered', value: 1.5, threshold: 1, notified: true, group: '' }),
    ]);
  });
});
