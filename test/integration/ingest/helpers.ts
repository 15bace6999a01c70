import type { TestApp } from '../../helpers/app';
import { seedWebhook } from '../webhooks/fixtures';

/**
 * Subscribes the organization to trace.completed so emitEvent writes outbox rows (no dispatcher runs in the api role).
 */
export async function subscribeTraceCompleted(app: TestApp, orgId: string) {
  return seedWebhook(app.database.db, app.config, orgId, 'https://receiver.invalid/hook', {
    events: ['trace.completed'],
  });
}

export async function traceCompletedEvents(app: TestApp, traceId?: string) {
  const rows = await app.database.db('event_outbox').where({ kind: 'trace.completed' }).orderBy('id');
  const events = rows.map(
    (r) =>
      (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as {
        trace: { id: string; status: string; ended_at: string; duration_ms: number };
      },
  );
  return traceId ? events.filter((e) => e.trace.id === traceId) : events;
}

export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
