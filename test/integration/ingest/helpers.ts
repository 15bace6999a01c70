import type { TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
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

/** The SDK wire format's calls with the tenant's full key, unique ids, and the rows stored (all projects). */
export function jsonIngestCalls(ctx: () => { app: TestApp; t: SeededTenant }) {
  let n = 0;
  const as = () => ({ token: ctx().t.fullKey });
  const db = () => ctx().app.database.db;
  return {
    uid: (p: string) => `${p}-${Date.now().toString(36)}-${n++}`,
    iso: (ms: number) => new Date(ms).toISOString(),
    post: (path: string, body: unknown) => api(ctx().app, 'POST', path, { ...as(), body }),
    patch: (path: string, body: unknown) => api(ctx().app, 'PATCH', path, { ...as(), body }),
    getTrace: async (id: string) =>
      (await api(ctx().app, 'GET', `/api/v1/traces/${encodeURIComponent(id)}`, as())).body.data,
    counts: async () => {
      const [tr] = await db()('traces').count<{ c: number }[]>('* as c');
      const [sp] = await db()('spans').count<{ c: number }[]>('* as c');
      return { traces: Number(tr!.c), spans: Number(sp!.c) };
    },
  };
}
