import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant } from '../../helpers/auth';
import { freshDatabase, type TestDatabase } from '../../helpers/db';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { killWorkerChild, startWorkerChild } from '../../helpers/worker-child';
import { seedFinishedDeliveries, waitUntil } from './fixtures';

/**
 * Issue 28 as a drill: a recovery of 10,000 dead-lettered deliveries, the worker role in a child
 * process SIGKILLed midway and started again. Every delivery must reach the receiver exactly once.
 *
 * The kill lands where a duplicate would come from: the receiver stops answering after 4,050
 * requests, and once the sends in flight are all waiting on it (nothing between a claim and its
 * send), the worker is killed. Those deliveries were received, their outcomes never recorded: the
 * page run again on the new worker must not send them again (they are recorded `interrupted`).
 */
describe('recovery of 10,000 deliveries across a worker crash (SIGKILL)', () => {
  const TOTAL = 10_000;
  const KILL_AT = 4_050; // mid-page (pages of 100): ten sends in flight
  let database: TestDatabase;
  let receiver: HttpsReceiver;
  let app: TestApp;
  let child: ChildProcess | undefined;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificates();
    Object.assign(env, {
      MASTER_KEY: randomBytes(32).toString('hex'),
      AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
      TEMPORAL_TASK_QUEUE: `recovery-drill-${randomBytes(4).toString('hex')}`,
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
      WEBHOOK_CA_FILE: caFile,
      LOG_LEVEL: 'silent',
    });
    // The api alone here (no worker: the worker role is the child process).
    app = await startTestApp({ role: 'api', database, env });
  });
  afterAll(async () => {
    if (child) await killWorkerChild(child, 'SIGKILL');
    await app?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it('sends every delivery exactly once more', async () => {
    const started = Date.now();
    const db = database.db;
    const t = await seedTenant(app);
    const as = { token: t.editor.token, orgId: t.orgId };
    const hook = (
      await api(app, 'POST', '/api/v1/webhooks', {
        ...as,
        body: { name: 'drill', url: `${receiver.url}/drill`, events: ['request.created'] },
      })
    ).body.data;
    const seeded = await seedFinishedDeliveries(db, hook.id, t.orgId, TOTAL, {
      createdAt: new Date(Date.now() - 3600_000),
    });
    const seededAt = Date.now();

    const received = new Map<string, number>();
    const held: ServerResponse[] = [];
    let holding = false;
    receiver.handle((req, res) => {
      const id = req.headers['x-service-delivery-id'] as string;
      received.set(id, (received.get(id) ?? 0) + 1);
      if (holding || received.size === KILL_AT) {
        holding = true;
        held.push(res);
      } else res.end('ok');
    });

    child = await startWorkerChild({ ...env, DATABASE_URL: database.url });
    const workerAt = Date.now();
    const res = await api(app, 'POST', `/api/v1/webhooks/${hook.id}/recover`, {
      ...as,
      body: { since: new Date(Date.now() - 24 * 3600_000).toISOString() },
    });
    expect(res.status).toBe(202);
    const rid = res.body.data.id as string;

    // Kill once every send in flight waits on the receiver (their number stable for 500 ms).
    let last = -1;
    await waitUntil(
      async () => {
        if (!holding) return false;
        const stable = held.length === last;
        last = held.length;
        if (!stable) await new Promise((r) => setTimeout(r, 500));
        return stable && held.length > 0;
      },
      120_000,
      'sends in flight held',
    );
    await killWorkerChild(child, 'SIGKILL');
    const killedAt = Date.now();
    const inFlight = held.length;
    for (const r of held.splice(0)) r.destroy();
    holding = false;
    expect(received.size).toBe(KILL_AT + inFlight - 1);

    child = await startWorkerChild({ ...env, DATABASE_URL: database.url });
    const restartedAt = Date.now();
    const done = await waitUntil(
      async () => {
        const r = (await api(app, 'GET', `/api/v1/webhooks/${hook.id}/recoveries/${rid}`, as)).body.data;
        return r.status !== 'running' ? r : undefined;
      },
      180_000,
      'recovery completed',
    );
    await killWorkerChild(child, 'SIGTERM');
    child = undefined;

    const counts = seeded.map((d) => received.get(d.id) ?? 0);
    expect(received.size).toBe(TOTAL);
    expect(counts.filter((c) => c !== 1)).toEqual([]);
    // Held when the worker died: received, outcome never recorded, not sent again.
    const interrupted = await db('webhook_recovery_items')
      .where({ recovery_id: rid, outcome: 'interrupted' })
      .count<{ count: string }[]>({ count: '*' });
    expect(Number(interrupted[0]!.count)).toBeGreaterThanOrEqual(inFlight);
    expect(done).toMatchObject({
      status: 'completed',
      matched: TOTAL,
      redelivered: TOTAL,
      skipped: 0,
      failed: Number(interrupted[0]!.count),
      delivered: TOTAL - Number(interrupted[0]!.count),
    });
    const attempts = await db('webhook_delivery_attempts')
      .where({ recovery_id: rid })
      .count<{ count: string }[]>({ count: '*' });
    expect(Number(attempts[0]!.count)).toBe(TOTAL);

    const s = (a: number, b: number) => `${((b - a) / 1000).toFixed(1)} s`;
    console.log(
      `recovery drill: seed ${s(started, seededAt)}, worker start ${s(seededAt, workerAt)}, ` +
        `${KILL_AT} sent and ${inFlight} held ${s(workerAt, killedAt)}, ` +
        `restart ${s(killedAt, restartedAt)}, rest ${s(restartedAt, Date.now())}; ` +
        `whole ${s(started, Date.now())}; ${interrupted[0]!.count} interrupted`,
    );
  }, 300_000);
});
