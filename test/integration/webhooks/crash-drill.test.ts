import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { emitEvents } from '../../../src/events/outbox';
import type { Config } from '../../../src/config';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { killWorkerChild, startWorkerChild } from '../../helpers/worker-child';
import { seedOrg, seedWebhook, waitUntil, webhookTestConfig } from './fixtures';

/**
 * Issue 11 §5 as a drill: the worker role runs in a child process that is SIGKILLed in the middle
 * of a burst of deliveries and started again. Every delivery the receiver answered 200 must end
 * `delivered`, and none may be sent again once its record says delivered.
 */
describe('webhook deliveries across a worker crash (SIGKILL)', () => {
  let database: TestDatabase;
  let receiver: HttpsReceiver;
  let config: Config;
  let child: ChildProcess | undefined;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificates();
    config = await webhookTestConfig();
    Object.assign(env, {
      DATABASE_URL: database.url,
      MASTER_KEY: config.MASTER_KEY!,
      AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
      TEMPORAL_TASK_QUEUE: `drill-${randomBytes(4).toString('hex')}`,
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_DISPATCH_POLL_MS: '500',
      LOG_LEVEL: 'silent',
    });
  });
  const kill = killWorkerChild;

  afterAll(async () => {
    if (child) await kill(child, 'SIGKILL');
    await receiver?.close();
    await database?.drop();
  });

  const startWorkerProcess = () => startWorkerChild(env);

  it('keeps every delivery answered 200 delivered, and sends none again after it was recorded delivered', async () => {
    const db = database.db;
    const orgId = await seedOrg(db);
    const hook = await seedWebhook(db, config, orgId, `${receiver.url}/drill`, { events: ['request.created'] });
    const answered = new Set<string>();
    const resentAfterDelivered: string[] = [];
    receiver.handle(async (req, res) => {
      const id = req.headers['x-service-delivery-id'] as string;
      const rec = await db('webhook_deliveries').where({ id }).first('status');
      if (rec?.status === 'delivered') resentAfterDelivered.push(id);
      // Slow answers keep attempts in flight when the kill lands.
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 150)));
      res.end('ok');
      answered.add(id);
    });

    const events = 40;
    child = await startWorkerProcess();
    await emitEvents(
      db,
      Array.from({ length: events }, (_, i) => ({
        orgId,
        kind: 'request.created' as const,
        object: { request: { id: `r-${i}` } },
      })),
    );
    await receiver.waitFor(12, 60_000);
    await kill(child, 'SIGKILL');
    const beforeRestart = receiver.requests.length;
    expect(beforeRestart).toBeLessThan(events);

    child = await startWorkerProcess();
    const rows = await waitUntil(
      async () => {
        const all = await db('webhook_deliveries').where({ webhook_id: hook.id });
        return all.length === events && all.every((r) => r.status === 'delivered') ? all : undefined;
      },
      90_000,
      'every delivery delivered',
    );
    await kill(child, 'SIGTERM');
    child = undefined;

    expect(rows.every((r) => r.error_message === null && r.http_status === 200)).toBe(true);
    for (const id of answered) expect(rows.find((r) => r.id === id)?.status).toBe('delivered');
    expect(resentAfterDelivered).toEqual([]);
  }, 180_000);
});
