import type { ServerResponse } from 'node:http';
import { emitEvents } from '../../../src/events/outbox';
import { RETRY_DELAYS_MS } from '../../../src/webhooks/policy';
import { startTestApp, type TestApp } from '../../helpers/app';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { seedOrg, seedWebhook, waitUntil } from './fixtures';

/**
 * Issue 28 §4 as a drill: a webhook whose receiver never answers within the send window has 1,000
 * deliveries pending while a healthy webhook gets a steady trickle of events. The healthy webhook's
 * event → first attempt p50 must stay ≤ 1 s, every event of both gets its delivery record, and no
 * attempt of the slow webhook starts before its due time. Real dev server, the real worker role
 * (dispatcher included), real HTTPS receivers on loopback; the send window is shortened to 2 s.
 * For measurements (docs/webhooks.md#isolation-a-slow-receiver): DRILL_WINDOW_MS, DRILL_SLOW_EVENTS.
 */
const SLOW_EVENTS = Number(process.env.DRILL_SLOW_EVENTS ?? 1_000);
const HEALTHY_RATE = 5; // events per second
const HEALTHY_SECONDS = 12;
const WINDOW_MS = Number(process.env.DRILL_WINDOW_MS ?? 2_000);

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

describe('a slow receiver cannot hold up the others (issue 28 §4)', () => {
  let app: TestApp;
  let slow: HttpsReceiver;
  let healthy: HttpsReceiver;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    const { caFile } = await testCertificates();
    slow = await startHttpsReceiver({ handler: (_req, res) => void held.push(res) }); // never answers
    healthy = await startHttpsReceiver();
    app = await startTestApp({
      role: 'worker',
      env: {
        WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
        WEBHOOK_CA_FILE: caFile,
        WEBHOOK_DISPATCH_POLL_MS: '500',
        WEBHOOK_ATTEMPT_TIMEOUT_MS: String(WINDOW_MS),
        EXPORT_WORKER: 'false',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await slow?.close();
    await healthy?.close();
    await app?.stop();
  });

  it('keeps the healthy webhook prompt, loses nothing and attempts nothing early', async () => {
    const db = app.database.db;
    const orgId = await seedOrg(db);
    const slowHook = await seedWebhook(db, app.config, orgId, `${slow.url}/hang`, { events: ['trace.completed'] });
    const healthyHook = await seedWebhook(db, app.config, orgId, `${healthy.url}/ok`, { events: ['request.created'] });

    // 1,000 events for the slow webhook, as features emit them (outbox rows, dispatched by the worker).
    const t0 = Date.now();
    await emitEvents(
      db,
      Array.from({ length: SLOW_EVENTS }, (_, i) => ({
        orgId,
        kind: 'trace.completed' as const,
        object: { trace: { id: `slow-${i}` } },
      })),
    );
    await waitUntil(
      async () => {
        const [{ n }] = await db('webhook_deliveries')
          .where({ webhook_id: slowHook.id })
          .whereNotNull('workflow_started_at')
          .count({ n: '*' });
        return Number(n) === SLOW_EVENTS;
      },
      60_000,
      'the slow webhook’s deliveries dispatched',
    );
    const dispatchedMs = Date.now() - t0;

    // Then a steady trickle for the healthy one, timed from each event's commit.
    const emittedAt = new Map<string, number>();
    const total = HEALTHY_RATE * HEALTHY_SECONDS;
    for (let i = 0; i < total; i++) {
      const due = Date.now() + 1000 / HEALTHY_RATE;
      await emitEvents(db, [{ orgId, kind: 'request.created', object: { request: { id: `h-${i}` } } }]);
      emittedAt.set(`h-${i}`, Date.now());
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    }
    await healthy.waitFor(total, 60_000).catch(() => undefined);
    const firstSeen = new Map<string, number>();
    for (const r of healthy.requests) {
      const id = (JSON.parse(r.raw.toString()) as { request: { id: string } }).request.id;
      if (!firstSeen.has(id)) firstSeen.set(id, r.at);
    }
    const latencies = [...emittedAt].map(([id, at]) => (firstSeen.get(id) ?? Date.now()) - at);
    const p50 = quantile(latencies, 0.5);
    const p95 = quantile(latencies, 0.95);

    // How far the slow backlog got: its deliveries wait (uncounted) for paced wake-ups, then fail fast.
    const [{ n: slowAttempted }] = await db('webhook_deliveries')
      .where({ webhook_id: slowHook.id })
      .where('attempt_count', '>=', 1)
      .count({ n: '*' });
    const slowErrors = await db('webhook_delivery_attempts as a')
      .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .where('d.webhook_id', slowHook.id)
      .select('a.error_message')
      .count({ n: '*' })
      .groupBy('a.error_message');
    console.log(
      `slow-receiver drill: slow dispatched in ${dispatchedMs} ms; ` +
        `healthy event → first attempt p50 ${p50} ms, p95 ${p95} ms, ` +
        `max ${Math.max(...latencies)} ms (${firstSeen.size}/${total} arrived); ` +
        `slow deliveries attempted at the end ${slowAttempted}/${SLOW_EVENTS} after ${Date.now() - t0} ms; ` +
        `slow requests received ${slow.requests.length}; slow attempts by error ${JSON.stringify(slowErrors)}`,
    );

    expect(p50).toBeLessThanOrEqual(1_000);
    expect(firstSeen.size).toBe(total);

    // Nothing lost: a delivery record for every event of both webhooks, every workflow started.
    const records = await db('webhook_deliveries')
      .whereIn('webhook_id', [slowHook.id, healthyHook.id])
      .select('webhook_id', 'status', 'attempt_count', 'next_retry_at', 'workflow_started_at');
    expect(records.filter((r) => r.webhook_id === slowHook.id)).toHaveLength(SLOW_EVENTS);
    expect(records.filter((r) => r.webhook_id === healthyHook.id)).toHaveLength(total);
    expect(records.every((r) => r.workflow_started_at !== null)).toBe(true);
    expect(
      records
        .filter((r) => r.webhook_id === healthyHook.id)
        .every((r) => r.status === 'delivered' && r.attempt_count === 1),
    ).toBe(true);

    // Nothing early: attempt n+1 starts at least the spec's wait after attempt n ended, and a pending
    // retry is due no sooner than that either.
    const attempts = await db('webhook_delivery_attempts as a')
      .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .where('d.webhook_id', slowHook.id)
      .orderBy(['a.delivery_id', 'a.number'])
      .select(
        'a.delivery_id',
        'a.number',
        'a.started_at',
        'a.duration_ms',
        'a.http_status',
        'd.next_retry_at',
        'd.attempt_count',
      );
    const early: string[] = [];
    const byDelivery = new Map<string, typeof attempts>();
    for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    for (const [id, list] of byDelivery) {
      list.forEach((a, i) => {
        expect(a.number).toBe(i + 1);
        expect(a.http_status).toBeNull(); // the receiver never answered: every attempt timed out or failed fast
        const endedAt = new Date(a.started_at).getTime() + a.duration_ms;
        const next = list[i + 1];
        const dueAt = endedAt + RETRY_DELAYS_MS[i]!;
        if (next && new Date(next.started_at).getTime() < dueAt) early.push(`${id} attempt ${next.number}`);
        if (!next && a.next_retry_at && new Date(a.next_retry_at).getTime() < dueAt)
          early.push(`${id} retry due early`);
      });
      expect(list.length).toBe(list[0]!.attempt_count);
    }
    expect(early).toEqual([]);
  }, 150_000);
});
