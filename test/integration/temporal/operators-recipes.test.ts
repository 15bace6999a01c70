import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../../activities';
import type { Config } from '../../../src/config';
import { deliveryWorkflowId, redeliveryWorkflowId } from '../../../src/webhooks/policy';
import { startDeliveryWorkflow } from '../../../src/webhooks/workflow-client';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/https-receiver';
import {
  activityDepsFor,
  quietTemporalRuntime,
  seedDelivery,
  seedOrg,
  seedWebhook,
  waitUntil,
  webhookTestConfig,
} from '../webhooks/fixtures';
import { decodePayload, docRecipes, expectRecipeList, runRecipe } from './recipes';

/**
 * docs/operators.md's recipes, run as written with the `temporal` CLI against the real dev server,
 * over deliveries brought into known states by the real delivery workflow, activities, PostgreSQL
 * and an HTTPS receiver. Timers are cut to 50 ms by a test-only workflow interceptor, except on the
 * `-real-timers` queue (a delivery that must stay waiting to retry).
 */
describe('operator recipes (docs/operators.md) on the dev server', () => {
  const address = process.env.TEMPORAL_ADDRESS!;
  const tq = `ops-${randomBytes(4).toString('hex')}`;
  const queues = { fast: tq, realTimers: `${tq}-real-timers`, noWorker: `${tq}-no-worker` };
  let database: TestDatabase;
  let config: Config;
  let deps: ActivityDeps;
  let receiver: HttpsReceiver;
  let connection: NativeConnection;
  let client: Client;
  let workers: Worker[] = [];
  let running: Promise<unknown>;
  const since = new Date(Date.now() - 1000).toISOString();
  /** Receiver answers per delivery id: status of the n-th request of that delivery. */
  const plans = new Map<string, (n: number) => number>();
  const ids = {} as Record<
    | 'org1'
    | 'org2'
    | 'hookA'
    | 'hookB'
    | 'hookC'
    | 'dead1'
    | 'dead2'
    | 'delivered'
    | 'retrying'
    | 'twice'
    | 'pending'
    | 'cancelled'
    | 'otherOrgDead',
    string
  >;
  const wf = (id: string) => deliveryWorkflowId(id);

  async function delivery(
    hook: { id: string; orgId: string; url: string },
    queue: string,
    plan: (n: number) => number,
  ): Promise<string> {
    const d = await seedDelivery(database.db, hook.id, hook.orgId, 'request.created');
    plans.set(d.id, plan);
    await startDeliveryWorkflow(client, queue, {
      id: d.id,
      webhookId: hook.id,
      orgId: hook.orgId,
      eventType: 'request.created',
      url: hook.url,
    });
    return d.id;
  }

  const recordStatus = async (id: string) =>
    (await database.db('webhook_deliveries').where({ id }).first())?.status as string | undefined;

  beforeAll(async () => {
    quietTemporalRuntime();
    database = await freshDatabase();
    config = await webhookTestConfig();
    deps = activityDepsFor(database.db, config);
    receiver = await startHttpsReceiver();
    const seen = new Map<string, number>();
    receiver.handle((req, res) => {
      const id = String(req.headers['x-service-delivery-id']);
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      res.statusCode = plans.get(id)?.(n) ?? 200;
      res.end();
    });
    const bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../../workflows'),
      workflowInterceptorModules: [require.resolve('./fast-timers')],
      logger: {
        log: () => undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: console.error,
      },
    });
    connection = await NativeConnection.connect({ address });
    client = new Client({ connection: await Connection.connect({ address }) });
    workers = await Promise.all(
      [queues.fast, queues.realTimers].map((taskQueue) =>
        Worker.create({ connection, taskQueue, workflowBundle: bundle, activities: createActivities(deps) }),
      ),
    );
    running = Promise.all(workers.map((w) => w.run()));

    ids.org1 = await seedOrg(database.db);
    ids.org2 = await seedOrg(database.db);
    const hook = async (orgId: string, path: string, isActive = true) => ({
      id: (await seedWebhook(database.db, config, orgId, `${receiver.url}${path}`, { isActive })).id,
      orgId,
      url: `${receiver.url}${path}`,
    });
    const [a, b, c] = [
      await hook(ids.org1, '/a?key=s3cret'),
      await hook(ids.org1, '/b', false),
      await hook(ids.org2, '/c'),
    ];
    Object.assign(ids, { hookA: a.id, hookB: b.id, hookC: c.id });
    const always = (status: number) => () => status;
    ids.dead1 = await delivery(a, queues.fast, always(500));
    ids.dead2 = await delivery(a, queues.fast, always(503));
    ids.delivered = await delivery(a, queues.fast, always(200));
    ids.retrying = await delivery(a, queues.realTimers, always(500));
    ids.twice = await delivery(a, queues.fast, (n) => (n === 1 ? 500 : 200));
    ids.pending = await delivery(a, queues.noWorker, always(200));
    ids.cancelled = await delivery(b, queues.fast, always(200));
    ids.otherOrgDead = await delivery(c, queues.fast, always(500));
    await waitUntil(
      async () => {
        const s = await Promise.all([ids.dead1, ids.dead2, ids.otherOrgDead].map(recordStatus));
        return (
          s.every((x) => x === 'dead_lettered') &&
          (await recordStatus(ids.twice)) === 'delivered' &&
          (await recordStatus(ids.cancelled)) === 'cancelled'
        );
      },
      30_000,
      'deliveries in their known states',
    );
    // An operator's redelivery of the delivery that was already sent twice: its own run.
    await startDeliveryWorkflow(client, queues.fast, {
      id: ids.twice,
      webhookId: a.id,
      orgId: a.orgId,
      eventType: 'request.created',
      url: a.url,
      redelivery: 1,
      firstAttempt: 3,
    });
    await client.workflow.getHandle(redeliveryWorkflowId(ids.twice, 1)).result();
  });

  afterAll(async () => {
    for (const id of [wf(ids.retrying), wf(ids.pending)])
      await client?.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    for (const w of workers) w.shutdown();
    await running;
    await connection?.close();
    await client?.connection.close();
    await deps?.http.close();
    await receiver?.close();
    await database?.drop();
  });

  const expectListed = (recipe: string, vars: Record<string, string>, expected: string[]) =>
    expectRecipeList(address, recipe, vars, expected);

  it('the page holds every recipe this test runs, and nothing else marked as one', () => {
    expect([...docRecipes().keys()].sort()).toEqual(
      [
        'dead-letters-of-webhook',
        'dead-lettered-count-for-org',
        'failing-for-org',
        'failing-since-for-webhook',
        'history-of-delivery',
        'retrying-now-for-webhook',
        'runs-of-delivery',
        'runs-of-schedule',
        'schedule-detail',
        'schedules',
        'stuck-pending-for-org',
      ].sort(),
    );
  });

  it(
    'what is failing for this customer: its failed and dead-lettered deliveries, ' + 'not another organization’s',
    async () => {
      await expectListed('failing-for-org', { ORG_ID: ids.org1 }, [wf(ids.dead1), wf(ids.dead2), wf(ids.retrying)]);
      expect(await runRecipe('dead-lettered-count-for-org', address, { ORG_ID: ids.org1 })).toEqual({ count: '2' });
      await expectListed('dead-letters-of-webhook', { WEBHOOK_ID: ids.hookA }, [wf(ids.dead1), wf(ids.dead2)]);
      await expectListed('dead-letters-of-webhook', { WEBHOOK_ID: ids.hookC }, [wf(ids.otherOrgDead)]);
      await expectListed('retrying-now-for-webhook', { WEBHOOK_ID: ids.hookA }, [wf(ids.retrying)]);
      await expectListed('stuck-pending-for-org', { ORG_ID: ids.org1 }, [wf(ids.pending)]);
    },
  );

  it('shows each delivery’s attempts and a summary without the query string', async () => {
    const [dead] = (await runRecipe('dead-letters-of-webhook', address, { WEBHOOK_ID: ids.hookA })) as {
      searchAttributes: { indexedFields: Record<string, { data: string }> };
    }[];
    expect(decodePayload(dead!.searchAttributes.indexedFields.AttemptCount)).toBe(5);
    const desc = await client.workflow.getHandle(wf(ids.dead1)).describe();
    expect(await desc.staticSummary()).toBe(`request.created → ${receiver.url}/a`);
  });

  it('retry everything since the outage: what failed since a time', async () => {
    await expectListed('failing-since-for-webhook', { WEBHOOK_ID: ids.hookA, SINCE: since }, [
      wf(ids.dead1),
      wf(ids.dead2),
      wf(ids.retrying),
    ]);
    await expectListed(
      'failing-since-for-webhook',
      { WEBHOOK_ID: ids.hookA, SINCE: new Date(Date.now() + 60_000).toISOString() },
      [],
    );
  });

  it('why was this delivery sent twice: its runs, and the attempts in the original run’s history', async () => {
    await expectListed('runs-of-delivery', { DELIVERY_ID: ids.twice }, [
      wf(ids.twice),
      redeliveryWorkflowId(ids.twice, 1),
    ]);
    type Marker = { details: Record<'data' | 'result', { payloads: { data: string }[] }> };
    const { events } = (await runRecipe('history-of-delivery', address, { DELIVERY_ID: ids.twice })) as {
      events: { eventType: string; markerRecordedEventAttributes?: Marker }[];
    };
    const attempts = events
      .map((e) => e.markerRecordedEventAttributes?.details)
      .filter(
        (d): d is Marker['details'] =>
          !!d &&
          (decodePayload(d.data.payloads[0]) as { activity_type: string }).activity_type === 'attemptWebhookDelivery',
      )
      .map((d) => decodePayload(d.result.payloads[0]) as { kind: string; httpStatus?: number });
    // A `busy` answer (the webhook had its maximum of sends in flight) is no attempt: the workflow
    // waited on a timer and asked again, which the other deliveries to the same webhook can cause.
    const busy = attempts.filter((a) => a.kind === 'busy').length;
    expect(attempts.filter((a) => a.kind !== 'busy').map((a) => a.httpStatus)).toEqual([500, 200]);
    expect(events.filter((e) => e.eventType === 'EVENT_TYPE_TIMER_FIRED')).toHaveLength(1 + busy);
    expect(events.filter((e) => e.eventType === 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES')).toHaveLength(2);
  });
});
