import { createHmac } from 'node:crypto';
import { encodeRequest } from '../../../src/ingest/otlp/decode';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';
import { exportRequest, hex, span } from '../../unit/ingest/otlp-fixtures';

/** trace.completed end to end: ingest → outbox → dispatcher → Temporal delivery → signed HTTPS POST. */
describe('trace.completed webhook delivery', () => {
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  let secret: string;
  let webhookId: string;
  beforeAll(async () => {
    const { caFile } = await testCertificates();
    receiver = await startHttpsReceiver();
    app = await startTestApp({
      role: 'all',
      env: { WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_CA_FILE: caFile },
    });
    t = await seedTenant(app);
    const created = await api(app, 'POST', '/api/v1/webhooks', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { name: 'traces', url: `${receiver.url}/hooks/traces`, events: ['trace.completed'] },
    });
    expect(created.status).toBe(201);
    secret = created.body.data.secret;
    webhookId = created.body.data.id;
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it('delivers one signed trace.completed per trace, for SDK and OTLP traces', async () => {
    const t0 = Date.parse('2026-08-01T09:00:00.000Z');
    const sdkTrace = `sdk-${Date.now()}`;
    await api(app, 'POST', '/ingest/batch', {
      token: t.fullKey,
      body: {
        operations: [
          { op: 'trace.create', id: sdkTrace, body: { name: 'sdk', start_time: new Date(t0).toISOString() } },
          {
            op: 'span.create',
            id: `${sdkTrace}-s`,
            body: { trace_id: sdkTrace, name: 's', start_time: new Date(t0).toISOString() },
          },
          {
            op: 'trace.update',
            id: sdkTrace,
            body: { end_time: new Date(t0 + 750).toISOString(), status: 'completed' },
          },
        ],
      },
    });
    // the span is still open: nothing yet; closing it completes the trace
    await api(app, 'PATCH', `/ingest/spans/${sdkTrace}-s`, {
      token: t.fullKey,
      body: { end_time: new Date(t0 + 700).toISOString() },
    });

    const otlpTrace = hex(16);
    const res = await fetch(`${app.url}/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/x-protobuf' },
      body: encodeRequest(
        exportRequest([
          span({
            traceId: otlpTrace,
            spanId: hex(8),
            name: 'otlp root',
            startMs: t0,
            endMs: t0 + 42,
            status: { code: 2 },
          }),
        ]),
      ),
    });
    expect(res.status).toBe(200);

    const got = await receiver.waitFor(2, 30_000);
    const bodies = got.map((r) => {
      const expected = `sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`;
      expect(r.headers['x-service-signature']).toBe(expected);
      return JSON.parse(r.raw.toString('utf8'));
    });
    const byTrace = Object.fromEntries(bodies.map((b) => [b.trace.id, b]));
    expect(byTrace[sdkTrace]).toMatchObject({
      event: 'trace.completed',
      webhook_id: webhookId,
      trace: { id: sdkTrace, status: 'completed', ended_at: '2026-08-01T09:00:00.750Z', duration_ms: 750 },
    });
    expect(byTrace[otlpTrace]).toMatchObject({
      event: 'trace.completed',
      trace: { id: otlpTrace, status: 'error', ended_at: '2026-08-01T09:00:00.042Z', duration_ms: 42 },
    });
    expect(typeof byTrace[otlpTrace].timestamp).toBe('string');

    // late updates after delivery do not produce a second event
    await api(app, 'PATCH', `/ingest/traces/${sdkTrace}`, {
      token: t.fullKey,
      body: { status: 'error', end_time: new Date(t0 + 900).toISOString() },
    });
    await api(app, 'POST', '/ingest/spans', {
      token: t.fullKey,
      body: {
        id: `${sdkTrace}-late`,
        trace_id: sdkTrace,
        name: 'late',
        start_time: new Date(t0).toISOString(),
        end_time: new Date(t0 + 1).toISOString(),
      },
    });
    // whatever the late updates emitted has been dispatched once the outbox is empty
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const [{ n }] = await app.database.db('event_outbox').count<{ n: number }[]>('* as n');
      if (Number(n) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const deliveries = await api(app, 'GET', `/api/v1/webhooks/${webhookId}/deliveries`, {
      token: t.admin.token,
      orgId: t.orgId,
    });
    expect(deliveries.body.data.filter((d: { event_type: string }) => d.event_type === 'trace.completed')).toHaveLength(
      2,
    );
    const outbox = await app.database.db('webhook_deliveries').where({ webhook_id: webhookId });
    expect(outbox).toHaveLength(2);
  });
});
