import { webhookActivities } from '../../../activities/webhooks';
import type { ActivityDeps } from '../../../activities';
import type { Config } from '../../../src/config';
import type { TestDatabase } from '../../helpers/db';
import type { HttpsReceiver } from '../../helpers/https-receiver';
import { startDeliveryBed, stopDeliveryBed, type DeliveryBed } from './delivery-bed';
import { seedDelivery, seedWebhook } from './fixtures';

/**
 * The delivery workflow's attempt claims (delivery-workflow.test.ts runs the workflow itself): the attempt
 * activity called directly, real PostgreSQL, a real HTTPS receiver on loopback, no Temporal server.
 */
describe('webhookDeliveryWorkflow (time-skipping)', () => {
  let bed: DeliveryBed;
  let database: TestDatabase;
  let config: Config;
  let receiver: HttpsReceiver;
  let orgId: string;
  let deps: ActivityDeps;

  beforeAll(async () => {
    bed = await startDeliveryBed();
    ({ database, config, receiver, orgId, deps } = bed);
  });
  afterAll(async () => {
    await stopDeliveryBed(bed);
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  const record = (id: string) => database.db('webhook_deliveries').where({ id }).first();

  it('an infrastructure retry of an attempt cannot send twice (the attempt number is claimed first)', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/claim`);
    receiver.handle((_r, res) => void res.end());
    const d = await seedDelivery(database.db, hook.id, orgId);
    const acts = webhookActivities(deps);
    const input = {
      deliveryId: d.id,
      webhookId: hook.id,
      attempt: 1,
      attemptedAt: new Date().toISOString(),
      firstAttemptAt: new Date().toISOString(),
      retryDelayMs: 60_000,
    };
    const first = await acts.attemptWebhookDelivery(input);
    const again = await acts.attemptWebhookDelivery(input);
    expect(first).toMatchObject({ kind: 'attempted', ok: true, httpStatus: 200 });
    // Issue 11 §5: the re-run finds this attempt's outcome recorded; a delivered record stays delivered.
    expect(again).toMatchObject({ kind: 'attempted', ok: true, httpStatus: 200, errorMessage: null });
    expect(receiver.requests).toHaveLength(1);
    expect(await record(d.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      http_status: 200,
      error_message: null,
    });
  });

  it('records an attempt as interrupted only when it was claimed and no outcome was recorded', async () => {
    const hook = await seedWebhook(database.db, config, orgId, `${receiver.url}/interrupted`);
    const d = await seedDelivery(database.db, hook.id, orgId);
    // The worker claimed attempt 1 and died before sending or recording anything.
    await database.db('webhook_deliveries').where({ id: d.id }).update({ attempt_count: 1 });
    const input = {
      deliveryId: d.id,
      webhookId: hook.id,
      attempt: 1,
      attemptedAt: new Date().toISOString(),
      firstAttemptAt: new Date().toISOString(),
      retryDelayMs: 60_000,
    };
    const out = await webhookActivities(deps).attemptWebhookDelivery(input);
    expect(out).toMatchObject({
      kind: 'attempted',
      ok: false,
      httpStatus: null,
      errorMessage: expect.stringMatching(/interrupted/),
    });
    expect(receiver.requests).toHaveLength(0);
    expect(await record(d.id)).toMatchObject({
      status: 'failed',
      attempt_count: 1,
      error_message: expect.stringMatching(/interrupted/),
    });
  });
});
