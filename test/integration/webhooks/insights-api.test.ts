import { randomUUID } from 'node:crypto';
import { insertAttempt } from '../../../src/webhooks/attempts';
import { NO_EVIDENCE } from '../../../src/webhooks/evidence';
import { buildBody } from '../../../src/webhooks/payload';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type ApiResult, type SeededTenant } from '../../helpers/auth';
import { seedWebhook } from './fixtures';

/** GET /webhooks/:id/attempts and /stats on real PostgreSQL, over deliveries and attempts seeded with known times. */
describe('webhook attempt log and stats', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let hookId: string;
  const db = () => app.runtime.ctx.db;
  const MIN = 60_000;
  const HOUR = 60 * MIN;
  /** The current hour's start: the 24h window's last bucket. */
  let H: number;
  const ids: Record<string, string> = {};

  type Try = [status: number | null, ms: number, minutesAfter: number, error?: string];
  type Seed = [hook: string, org: string, name: string, status: string, created: number, event: string, tries: Try[]];
  const seed = async (...[hook, org, name, status, created, eventType, tries]: Seed) => {
    const id = randomUUID();
    ids[name] = id;
    const body = buildBody(eventType, hook, new Date(created), { request: { id: name } });
    const row = { id, webhook_id: hook, org_id: org, event_type: eventType, body, status, attempt_count: tries.length };
    const workflow = deliveryWorkflowId(id);
    await db()('webhook_deliveries').insert({ ...row, workflow_id: workflow, created_at: new Date(created) });
    for (const [i, [http, ms, after, failure]] of tries.entries()) {
      const ok = http !== null && http < 300;
      const error = failure ?? (ok ? null : http === null ? 'timeout after 10 s' : `HTTP ${http}`);
      const startedAt = new Date(created + after * MIN);
      await insertAttempt(db(), id, {
        number: i + 1,
        source: 'delivery',
        started_at: startedAt,
        duration_ms: ms,
        http_status: http,
        error_message: error,
        evidence: NO_EVIDENCE,
      });
    }
  };

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = [await seedTenant(app), await seedTenant(app)];
    // Seeding near the end of an hour could straddle two windows: start on the next hour then.
    const left = HOUR - (Date.now() % HOUR);
    if (left < 20_000) await new Promise((r) => setTimeout(r, left + 100));
    H = Math.floor(Date.now() / HOUR) * HOUR;
    hookId = (await seedWebhook(db(), app.config, t.orgId, 'https://hooks.example.com/insights')).id;
    const o = t.orgId;
    const rc = 'request.created';
    await seed(hookId, o, 'D1', 'delivered', H - 2 * HOUR + 10 * MIN, rc, [
      [500, 100, 1],
      [200, 300, 3],
    ]);
    await seed(hookId, o, 'D2', 'dead_lettered', H - 2 * HOUR + 20 * MIN, 'trace.completed', [
      [503, 100, 1],
      [503, 200, 2],
      [404, 300, 3],
      [null, 400, 4],
      [503, 500, 5],
    ]);
    await seed(hookId, o, 'D3', 'delivered', H - HOUR + 5 * MIN, 'request.created', [[204, 50, 1]]);
    await seed(hookId, o, 'D4', 'failed', H, 'request.created', [[502, 1000, 0]]);
    await seed(hookId, o, 'D5', 'pending', H - 3 * HOUR, 'request.created', []);
    await seed(hookId, o, 'D6', 'delivered', H - 30 * HOUR, 'request.created', [[200, 9999, 1]]);
    // Neither another webhook of the organization nor another organization's shows up.
    const sibling = (await seedWebhook(db(), app.config, t.orgId, 'https://hooks.example.com/sibling')).id;
    await seed(sibling, o, 'S1', 'delivered', H - HOUR, 'request.created', [[200, 7, 1]]);
    const foreign = (await seedWebhook(db(), app.config, other.orgId, 'https://hooks.example.com/foreign')).id;
    await seed(foreign, other.orgId, 'F1', 'delivered', H - HOUR, 'request.created', [[200, 7, 1]]);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const get = (path: string, tenant = t, who: 'admin' | 'viewer' = 'viewer') =>
    api(app, 'GET', `/api/v1/webhooks/${hookId}${path}`, { token: tenant[who].token, orgId: tenant.orgId });
  type AttemptRef = { delivery_id: string; number: number };
  const keyOf = (a: AttemptRef) => `${Object.keys(ids).find((k) => ids[k] === a.delivery_id)}#${a.number}`;
  const list = async (query: string) => {
    const r = await get(`/attempts?${query}`);
    expect(r.status).toBe(200);
    return r.body;
  };

  it('lists every attempt newest first, page by page, with its delivery, event type and workflow', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const body: ApiResult<AttemptRef[]>['body'] = await list(`limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.data.map(keyOf));
      pages.push(body.data.length);
      cursor = body.next_cursor as string | null;
    } while (cursor);
    expect(pages).toEqual([4, 4, 2]);
    expect(seen).toEqual(['D4#1', 'D3#1', 'D2#5', 'D2#4', 'D2#3', 'D2#2', 'D2#1', 'D1#2', 'D1#1', 'D6#1']);

    const [first] = (await list('limit=1')).data;
    expect(first).toEqual({
      number: 1,
      source: 'delivery',
      redelivery: null,
      recovery_id: null,
      started_at: new Date(H).toISOString(),
      duration_ms: 1000,
      http_status: 502,
      error_message: 'HTTP 502',
      redirects: [],
      response_headers: null,
      response_body: null,
      response_body_truncated: false,
      delivery_id: ids.D4,
      event_type: 'request.created',
      workflow_id: deliveryWorkflowId(ids.D4!),
    });
  });

  it('filters by outcome, status class, time and event type', async () => {
    const keys = async (q: string) => ((await list(q)).data as AttemptRef[]).map(keyOf);
    expect(await keys('status=delivered')).toEqual(['D3#1', 'D1#2', 'D6#1']);
    expect(await keys('status=failed')).toEqual(['D4#1', 'D2#5', 'D2#4', 'D2#3', 'D2#2', 'D2#1', 'D1#1']);
    expect(await keys('http_status=5xx')).toEqual(['D4#1', 'D2#5', 'D2#2', 'D2#1', 'D1#1']);
    expect(await keys('http_status=4xx')).toEqual(['D2#3']);
    expect(await keys('http_status=2xx&status=failed')).toEqual([]);
    expect(await keys('event_type=trace.completed')).toEqual(['D2#5', 'D2#4', 'D2#3', 'D2#2', 'D2#1']);
    const since = new Date(H - 2 * HOUR + 22 * MIN).toISOString();
    const until = new Date(H - 2 * HOUR + 25 * MIN).toISOString();
    expect(await keys(`since=${since}&until=${until}`)).toEqual(['D2#4', 'D2#3', 'D2#2']);
  });

  it('a 2xx whose body timed out is a failed attempt of class 2xx', async () => {
    const edge = (await seedWebhook(db(), app.config, t.orgId, 'https://hooks.example.com/edge')).id;
    await seed(edge, t.orgId, 'E1', 'failed', H, 'request.created', [[200, 10_000, 0, 'timeout after 10 s']]);
    const as = { token: t.viewer.token, orgId: t.orgId };
    const count = async (q: string) =>
      (await api(app, 'GET', `/api/v1/webhooks/${edge}/attempts?${q}`, as)).body.data.length as number;
    const got = [await count('status=failed'), await count('status=delivered'), await count('http_status=2xx')];
    expect(got).toEqual([1, 0, 1]);
  });

  it('refuses bad input and another organization’s webhook', async () => {
    expect((await get('/attempts?limit=201')).status).toBe(400);
    expect((await get('/attempts?status=ok')).status).toBe(400);
    expect((await get('/attempts?cursor=bm9wZQ')).body.code).toBe('invalid_cursor');
    expect((await get('/stats?window=1y')).status).toBe(400);
    expect((await get('/attempts', other, 'admin')).status).toBe(404);
    expect((await get('/stats', other, 'admin')).status).toBe(404);
  });

  it('stats over 24h: counts, rate, attempts per delivery, duration percentiles and an hourly series', async () => {
    const r = await get('/stats');
    expect(r.status).toBe(200);
    const s = r.body.data;
    expect(s).toMatchObject({
      window: '24h',
      since: new Date(H - 23 * HOUR).toISOString(),
      bucket: 'hour',
      deliveries: { total: 5, pending: 1, delivered: 2, failed: 1, dead_lettered: 1, cancelled: 0 },
      attempts: 9,
      attempts_per_delivery: 1.8,
      // Durations 50 100 100 200 300 300 400 500 1000: p50 the 5th; p95 at 7.6 = 500 + 0.6 × 500.
      duration_ms: { p50: 300, p95: 800 },
    });
    expect(s.success_rate).toBeCloseTo(2 / 3, 10);
    expect(s.series).toHaveLength(24);
    const nonEmpty = s.series.filter(
      (b: { delivered: number; failed: number; dead_lettered: number }) => b.delivered + b.failed + b.dead_lettered > 0,
    );
    expect(nonEmpty).toEqual([
      { bucket: new Date(H - 2 * HOUR).toISOString(), delivered: 1, failed: 0, dead_lettered: 1 },
      { bucket: new Date(H - HOUR).toISOString(), delivered: 1, failed: 0, dead_lettered: 0 },
      { bucket: new Date(H).toISOString(), delivered: 0, failed: 1, dead_lettered: 0 },
    ]);
  });

  it('stats over 7d take D6 in; daily buckets', async () => {
    const s = (await get('/stats?window=7d')).body.data;
    const DAY = 24 * HOUR;
    const today = Math.floor(Date.now() / DAY) * DAY;
    expect(s).toMatchObject({
      since: new Date(today - 6 * DAY).toISOString(),
      bucket: 'day',
      deliveries: { total: 6, pending: 1, delivered: 3, failed: 1, dead_lettered: 1, cancelled: 0 },
      attempts: 10,
      success_rate: 0.75,
      // Ten durations: p50 between the 5th and 6th (300, 300); p95 at 8.55 = 1000 + 0.55 × 8999.
      duration_ms: { p50: 300, p95: 5949.45 },
    });
    expect(s.attempts_per_delivery).toBeCloseTo(10 / 6, 10);
    expect(s.series).toHaveLength(7);
    const day = (ms: number) => new Date(Math.floor(ms / DAY) * DAY).toISOString();
    const expected = new Map<string, { delivered: number; failed: number; dead_lettered: number }>();
    const add = (at: number, k: 'delivered' | 'failed' | 'dead_lettered') => {
      const b = expected.get(day(at)) ?? { delivered: 0, failed: 0, dead_lettered: 0 };
      b[k] += 1;
      expected.set(day(at), b);
    };
    add(H - 2 * HOUR + 10 * MIN, 'delivered');
    add(H - 2 * HOUR + 20 * MIN, 'dead_lettered');
    add(H - HOUR + 5 * MIN, 'delivered');
    add(H, 'failed');
    add(H - 30 * HOUR, 'delivered');
    const none = { delivered: 0, failed: 0, dead_lettered: 0 };
    for (const b of s.series) expect(b).toEqual({ bucket: b.bucket, ...(expected.get(b.bucket) ?? none) });
    const month = (await get('/stats?window=30d')).body.data;
    expect(month).toMatchObject({ bucket: 'day', deliveries: { total: 6 }, attempts: 10 });
  });

  it('an empty webhook: zeros and nulls, 30 daily buckets', async () => {
    const empty = (await seedWebhook(db(), app.config, t.orgId, 'https://hooks.example.com/empty')).id;
    const as = { token: t.viewer.token, orgId: t.orgId };
    const r = await api(app, 'GET', `/api/v1/webhooks/${empty}/stats?window=30d`, as);
    expect(r.body.data).toMatchObject({
      deliveries: { total: 0 },
      attempts: 0,
      success_rate: null,
      attempts_per_delivery: null,
      duration_ms: { p50: null, p95: null },
    });
    expect(r.body.data.series).toHaveLength(30);
  });
});
