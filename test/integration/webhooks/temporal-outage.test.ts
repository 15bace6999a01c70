import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { emitEvent } from '../../../src/events/outbox';
import { startDevServer, type DevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../../src/util/net';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import { startTestApp, type TestApp } from '../../helpers/app';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { seedOrg, seedWebhook, waitUntil } from './fixtures';

/**
 * Nothing is lost while Temporal is down: the event waits in PostgreSQL (outbox → delivery record
 * with no workflow started) and goes out, once, when Temporal is back. Uses its own Temporal dev
 * server (not the suite's) so stopping it disturbs no other test.
 */
describe('webhook delivery across a Temporal outage', () => {
  let server: DevServer | undefined;
  let app: TestApp;
  let receiver: HttpsReceiver;
  let port: number;
  let dataDir: string;
  const dbFile = () => path.join(dataDir, 'temporal.sqlite');

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-temporal-outage-'));
    port = await freePort();
    server = await startDevServer({ port, dbFile: dbFile() });
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificates();
    app = await startTestApp({
      role: 'all',
      env: {
        TEMPORAL_ADDRESS: server.address,
        WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
        WEBHOOK_CA_FILE: caFile,
        WEBHOOK_DISPATCH_POLL_MS: '500',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await server?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the event in PostgreSQL while Temporal is down and delivers it exactly once when it is back', async () => {
    const db = app.runtime.ctx.db;
    const orgId = await seedOrg(db);
    const hook = await seedWebhook(db, app.config, orgId, `${receiver.url}/outage`, { events: ['alert.triggered'] });

    await server!.stop();
    server = undefined;
    await emitEvent(db, orgId, 'alert.triggered', {
      alert: { id: 'al-1', name: 'cost', type: 'cost', threshold: 10, current_value: 12, window_minutes: 60 },
      organization: { name: 'Acme' },
    });

    // The dispatcher turned the event into a delivery record but could not start its workflow.
    const rec = await waitUntil(
      async () => db('webhook_deliveries').where({ webhook_id: hook.id }).first(),
      20_000,
      'delivery record',
    );
    expect(rec).toMatchObject({ status: 'pending', workflow_started_at: null, attempt_count: 0 });
    expect(await db('event_outbox')).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests).toHaveLength(0);

    server = await startDevServer({ port, dbFile: dbFile() });
    const [req] = await receiver.waitFor(1, 60_000);
    expect(req!.headers['x-service-delivery-id']).toBe(rec.id);
    expect(JSON.parse(req!.raw.toString())).toMatchObject({
      event: 'alert.triggered',
      webhook_id: hook.id,
      alert: { id: 'al-1' },
      organization: { name: 'Acme' },
    });

    const done = await waitUntil(
      async () => {
        const r = await db('webhook_deliveries').where({ id: rec.id }).first();
        return r?.status === 'delivered' && r.workflow_started_at ? r : undefined;
      },
      30_000,
      'delivered',
    );
    expect(done.attempt_count).toBe(1);
    const handle = app.runtime.ctx.temporal.client.workflow.getHandle(deliveryWorkflowId(rec.id));
    await waitUntil(async () => (await handle.describe()).status.name === 'COMPLETED', 20_000, 'workflow completed');
    // Exactly once: later dispatcher passes (polling every 500 ms here) do not start it again.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests).toHaveLength(1);
  }, 150_000);
});
