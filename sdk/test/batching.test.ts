import { GatewayClient, DEFAULTS } from '../src';
import { API_KEY, recordingFetch, startFakeGateway, wireOps } from './helpers/gateway';

describe('batching transport', () => {
  it('defaults: batch transport, 200 ms interval, 100 operations, 512 KiB, 10 s timeout', () => {
    expect(DEFAULTS).toMatchObject({
      transport: 'batch',
      flushIntervalMs: 200,
      maxBatchSize: 100,
      maxBatchBytes: 512 * 1024,
      timeoutMs: 10_000,
      maxBufferedOperations: 1_000,
      maxPayloadBytes: 16_384,
      retryAttempts: 3,
      retryInitialDelayMs: 200,
    });
  });

  it('groups operations recorded within the flush interval into one request', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, fetch: rec.fetch, flushIntervalMs: 50 });
    const t = c.startTrace({ name: 't' });
    t.startSpan({ name: 'a' }).end();
    t.end();
    expect(rec.requests).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(rec.requests).toHaveLength(0); // still waiting for company
    await new Promise((r) => setTimeout(r, 60));
    expect(rec.requests).toHaveLength(1);
    expect(rec.requests[0]!.path).toBe('/ingest/batch');
    expect(rec.requests[0]!.body.operations.map((o: { op: string }) => o.op)).toEqual([
      'trace.create',
      'span.create',
      'span.update',
      'trace.update',
    ]);
  });

  it('sends at once when a full batch is waiting, and splits by maxBatchSize', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({
      baseUrl: 'http://gw.test',
      apiKey: API_KEY,
      fetch: rec.fetch,
      flushIntervalMs: 60_000,
      maxBatchSize: 10,
    });
    const t = c.startTrace({ name: 't' });
    for (let i = 0; i < 12; i++) t.startSpan({ name: `s${i}` });
    await new Promise((r) => setTimeout(r, 20));
    expect(rec.requests.length).toBeGreaterThanOrEqual(1);
    expect(rec.requests[0]!.body.operations).toHaveLength(10);
    await c.flush(); // does not wait for the 60 s interval
    expect(rec.requests.map((r) => r.body.operations.length)).toEqual([10, 3]);
  });

  it('splits by maxBatchBytes (a single larger operation still goes alone)', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({
      baseUrl: 'http://gw.test',
      apiKey: API_KEY,
      fetch: rec.fetch,
      maxBatchBytes: 4_000,
      maxPayloadBytes: 16_384,
    });
    const t = c.startTrace({ name: 't' });
    for (let i = 0; i < 5; i++) t.startSpan({ name: `s${i}`, input: 'x'.repeat(1_500) });
    t.startSpan({ name: 'huge', input: 'y'.repeat(10_000) });
    await c.flush();
    const sizes = rec.requests.map((r) => Buffer.byteLength(JSON.stringify(r.body)));
    expect(rec.requests.length).toBeGreaterThan(2);
    for (let i = 0; i < rec.requests.length; i++) {
      if (rec.requests[i]!.body.operations.length > 1) expect(sizes[i]).toBeLessThanOrEqual(4_000);
    }
    expect(wireOps(rec.requests).map((o) => o.body.name ?? o.op)).toEqual(['t', 's0', 's1', 's2', 's3', 's4', 'huge']);
  });

  it('keeps FIFO order across many batches with one request in flight at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const gw = await startFakeGateway(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      return 'ok' as const;
    });
    try {
      const c = new GatewayClient({ baseUrl: gw.url, apiKey: API_KEY, flushIntervalMs: 5, maxBatchSize: 7 });
      const expected: string[] = [];
      for (let i = 0; i < 20; i++) {
        const t = c.startTrace({ name: `t${i}` });
        expected.push(`trace.create:${t.id}`);
        const s = t.startSpan({ name: 's' });
        expected.push(`span.create:${s.id}`);
        if (i % 3 === 0) await new Promise((r) => setTimeout(r, 3)); // interleave with sending
        s.end();
        expected.push(`span.update:${s.id}`);
        t.end();
        expected.push(`trace.update:${t.id}`);
      }
      await c.flush();
      expect(wireOps(gw.requests).map((o) => `${o.op}:${o.id}`)).toEqual(expected);
      expect(maxInFlight).toBe(1);
      expect(gw.requests.length).toBeGreaterThan(80 / 7);
    } finally {
      await gw.close();
    }
  });

  it('single transport sends one request per operation to the resource endpoints', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, fetch: rec.fetch, transport: 'single' });
    const t = c.startTrace({ name: 't' });
    const s = t.startSpan({ name: 's' });
    s.end();
    t.end();
    await c.flush();
    expect(rec.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /ingest/traces',
      'POST /ingest/spans',
      `PATCH /ingest/spans/${s.id}`,
      `PATCH /ingest/traces/${t.id}`,
    ]);
    expect(rec.requests[2]!.body.id).toBeUndefined(); // the id is in the path for updates
  });

  it('drops and reports operations beyond maxQueueSize instead of growing without bound', async () => {
    const rec = recordingFetch();
    const errors: string[] = [];
    const c = new GatewayClient({
      baseUrl: 'http://gw.test',
      apiKey: API_KEY,
      fetch: rec.fetch,
      maxQueueSize: 5,
      flushIntervalMs: 60_000,
      onError: (err, op) => errors.push(`${op}:${err.kind}`),
    });
    const t = c.startTrace({ name: 't' });
    for (let i = 0; i < 6; i++) t.startSpan({ name: `s${i}` });
    await c.flush();
    expect(wireOps(rec.requests)).toHaveLength(5);
    expect(errors).toEqual(['queue:queue_full', 'queue:queue_full']);
    expect(c.stats().queueDroppedOperations).toBe(2);
  });

  it('flush waits for operations recorded while it was flushing', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, fetch: rec.fetch });
    const t = c.startTrace({ name: 't' });
    const flushing = c.flush();
    t.end();
    await flushing;
    expect(wireOps(rec.requests).map((o) => o.op)).toEqual(['trace.create', 'trace.update']);
  });
});
