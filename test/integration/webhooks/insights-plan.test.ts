import { randomUUID } from 'node:crypto';
import { buildBody } from '../../../src/webhooks/payload';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { seedWebhook } from './fixtures';

/**
 * The attempt log and stats read indexes, never a whole table: 6,000 deliveries and 12,000 attempts
 * over 10 webhooks, analysed, and the plan of every statement the two routes run (migration 029).
 */
describe('webhook attempt log and stats: query plans', () => {
  let app: TestApp;
  let t: SeededTenant;
  const db = () => app.runtime.ctx.db;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(async () => app?.stop());

  it('uses the webhook indexes of deliveries and attempts', async () => {
    const hooks: string[] = [];
    for (let i = 0; i < 10; i++) {
      hooks.push((await seedWebhook(db(), app.config, t.orgId, `https://h.example.com/${i}`)).id);
    }
    const now = Date.now();
    const rows = Array.from({ length: 6000 }, (_, i) => {
      const hook = hooks[i % 10]!;
      const body = buildBody('request.created', hook, new Date(now), {});
      const status = ['delivered', 'failed', 'dead_lettered'][i % 3];
      const createdAt = new Date(now - i * 7 * 60_000);
      const event = 'request.created';
      const id = randomUUID();
      return { id, webhook_id: hook, org_id: t.orgId, event_type: event, body, status, created_at: createdAt };
    });
    const attempts = rows.flatMap((r) =>
      [1, 2].map((n) => ({
        delivery_id: r.id,
        webhook_id: r.webhook_id,
        number: n,
        source: 'delivery',
        started_at: new Date(r.created_at.getTime() + n * 60_000),
        duration_ms: n * 10,
        http_status: 200,
      })),
    );
    for (let i = 0; i < rows.length; i += 1000) await db()('webhook_deliveries').insert(rows.slice(i, i + 1000));
    for (let i = 0; i < attempts.length; i += 1000) {
      await db()('webhook_delivery_attempts').insert(attempts.slice(i, i + 1000));
    }
    await db().raw('analyze webhook_deliveries; analyze webhook_delivery_attempts');

    const seen: { sql: string; bindings: unknown[] }[] = [];
    const listen = (q: { sql: string; bindings?: unknown[] }) => {
      if (/webhook_deliver/.test(q.sql)) seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
    };
    db().on('query', listen);
    const as = { token: t.viewer.token, orgId: t.orgId };
    const base = `/api/v1/webhooks/${hooks[0]}`;
    const since = new Date(now - 86_400_000).toISOString();
    const paths = ['/attempts', `/attempts?status=failed&since=${since}`, '/attempts?event_type=test'];
    paths.push('/stats', '/stats?window=30d');
    for (const path of paths) {
      expect((await api(app, 'GET', `${base}${path}`, as)).status).toBe(200);
    }
    db().removeListener('query', listen);
    expect(seen.length).toBeGreaterThanOrEqual(7);
    for (const q of seen) {
      // knex hands the pg-native text ($1, …) to the listener: back to ? for raw().
      const plan = await db().raw(`explain ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as never[]);
      const text = (plan.rows as Record<string, string>[]).map((r) => r['QUERY PLAN']).join('\n');
      expect(text).not.toMatch(/Seq Scan on webhook_deliver/);
    }
  });
});
