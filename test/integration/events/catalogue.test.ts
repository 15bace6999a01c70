import Ajv2020 from 'ajv/dist/2020';
import { eventTypeDef } from '../../../src/events/catalogue';
import { eventKinds } from '../../../src/events/outbox';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { createRule, MIN, newProject, seed } from '../alerts/helpers';
import { waitUntil } from '../webhooks/fixtures';

/**
 * GET /api/v1/event-types, and the guard against drift: every body real flows deliver (a proxied
 * call, an ingested trace, an alert rule's run, the test ping) validates against the JSON Schema
 * the catalogue serves, and against its zod schema (which also checks formats).
 */
interface EventType {
  name: string;
  description: string;
  subscribable: boolean;
  schema: object;
  example: Record<string, unknown>;
}

describe('event catalogue', () => {
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  let upstream: FakeUpstream;
  const as = (who: 'admin' | 'viewer' = 'admin') => ({ token: t[who].token, orgId: t.orgId });
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

  beforeAll(async () => {
    const { caFile } = await testCertificates();
    receiver = await startHttpsReceiver();
    upstream = await startFakeUpstream();
    app = await startTestApp({
      role: 'all',
      env: {
        WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
        WEBHOOK_CA_FILE: caFile,
        WEBHOOK_DISPATCH_POLL_MS: '500',
        PROVIDER_OPENAI_BASE_URL: upstream.url,
        PROXY_LOG_FLUSH_MS: '10',
      },
    });
    t = await seedTenant(app, { name: 'Catalogue Org' });
  });
  afterAll(async () => {
    await app?.stop();
    await upstream?.close();
    await receiver?.close();
  });

  const catalogue = async () => {
    const res = await api(app, 'GET', '/api/v1/event-types', as('viewer'));
    expect(res.status).toBe(200);
    return res.body.data as EventType[];
  };

  it('lists every event kind with a description, a JSON Schema and an example that validates', async () => {
    const types = await catalogue();
    expect(types.map((e) => e.name)).toEqual([...eventKinds, 'test']);
    expect(types.filter((e) => e.subscribable).map((e) => e.name)).toEqual([...eventKinds]);
    for (const e of types) {
      expect(e.description).toMatch(/\S/);
      expect(e.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
      const validate = ajv.compile(e.schema);
      const ok = validate(e.example);
      expect({ name: e.name, errors: ok ? null : validate.errors }).toEqual({ name: e.name, errors: null });
      // A body of another kind does not pass.
      expect(validate({ ...e.example, event: 'something.else' })).toBe(false);
    }
  });

  it('every body real flows deliver validates against its catalogue schema', async () => {
    const body = { name: 'all', url: `${receiver.url}/all`, events: [...eventKinds] };
    const hook = await api(app, 'POST', '/api/v1/webhooks', { ...as(), body });
    expect(hook.status).toBe(201);

    // request.created: a call through the proxy.
    const providerKey = { project_id: t.projectId, provider: 'openai', api_key: 'sk-upstream-openai-0123456789abcdef' };
    const key = await api(app, 'PUT', '/api/v1/provider-keys', { ...as(), body: providerKey });
    expect([200, 201]).toContain(key.status);
    const proxied = await fetch(`${app.url}/proxy/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(proxied.status).toBe(200);
    await proxied.text();

    // trace.completed: a trace through the ingest API, closed by its last span.
    const at = Date.now() - 5_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const traceId = `cat-${at}`;
    const batch = await api(app, 'POST', '/ingest/batch', {
      token: t.fullKey,
      body: {
        operations: [
          { op: 'trace.create', id: traceId, body: { name: 'catalogue', start_time: iso(at) } },
          {
            op: 'span.create',
            id: `${traceId}-s`,
            body: { trace_id: traceId, name: 's', start_time: iso(at), end_time: iso(at + 40) },
          },
          { op: 'trace.update', id: traceId, body: { end_time: iso(at + 50), status: 'error' } },
        ],
      },
    });
    expect(batch.status).toBeLessThan(300);

    // alert.triggered: a cost rule's schedule run over rows written by the request-log writer.
    const p = await newProject(app, t);
    await seed(app, t, p, 3, Date.now() - 3 * MIN, { cost_usd: 0.5 });
    const rule = await createRule(app, t, { name: 'Spend', type: 'cost', threshold: 1, project_id: p });
    await app.runtime.ctx.temporal.client.schedule.getHandle(rule.schedule.id).trigger();

    // test: the on-demand ping.
    expect((await api(app, 'POST', `/api/v1/webhooks/${hook.body.data.id}/test`, as())).status).toBe(200);

    // The proxied call and the three seeded rows are each one request.created.
    const want: Record<string, number> = { 'request.created': 4, 'trace.completed': 1, 'alert.triggered': 1, test: 1 };
    const count = (k: string) => receiver.requests.filter((r) => JSON.parse(r.raw.toString('utf8')).event === k).length;
    const all = async () => Object.entries(want).every(([k, n]) => count(k) >= n);
    await waitUntil(all, 45_000, 'the bodies of every kind');

    const served = new Map((await catalogue()).map((e) => [e.name, ajv.compile(e.schema)]));
    const seen: Record<string, number> = {};
    for (const r of receiver.requests) {
      const body = JSON.parse(r.raw.toString('utf8'));
      seen[body.event] = (seen[body.event] ?? 0) + 1;
      const validate = served.get(body.event);
      expect(validate).toBeDefined();
      const ok = validate!(body);
      expect({ event: body.event, errors: ok ? null : validate!.errors }).toEqual({ event: body.event, errors: null });
      const zod = eventTypeDef(body.event)!.schema.safeParse(body);
      const issues = zod.success ? null : zod.error.issues;
      expect({ event: body.event, issues }).toEqual({ event: body.event, issues: null });
    }
    expect(seen).toEqual(want);
  });
});
