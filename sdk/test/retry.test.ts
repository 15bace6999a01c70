import { GatewayClient, IngestError, type ErrorOp } from '../src';
import { API_KEY, startFakeGateway, wireOps, type FakeGateway } from './helpers/gateway';

/** Real time, real sockets: retry timing is checked against a wall clock with tolerance. */
describe('retries against a fault-injecting server', () => {
  let gw: FakeGateway;
  beforeEach(async () => {
    gw = await startFakeGateway();
  });
  afterEach(async () => {
    await gw.close();
  });

  /** When each attempt started, as the client saw it (the server's clock lags under load). */
  let attemptStarts: number[] = [];
  beforeEach(() => {
    attemptStarts = [];
  });

  function client(extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) {
    const errors: Array<{ err: IngestError; op: ErrorOp }> = [];
    const c = new GatewayClient({
      baseUrl: gw.url,
      apiKey: API_KEY,
      onError: (err, op) => errors.push({ err, op }),
      fetch: (input, init) => {
        attemptStarts.push(performance.now());
        return fetch(input, init);
      },
      ...extra,
    });
    return { c, errors };
  }

  function gaps(): number[] {
    return attemptStarts.slice(1).map((t, i) => t - attemptStarts[i]!);
  }

  it('retries 5xx 3 times in total, 200 ms then 400 ms apart, then hands the failure to onError', async () => {
    gw.setHandler(() => ({ status: 503, body: { success: false, error: 'unavailable', code: 'unavailable' } }));
    const { c, errors } = client({ transport: 'single' });
    c.startTrace({ name: 't' });
    const started = performance.now();
    await c.flush();
    const elapsed = performance.now() - started;

    expect(gw.requests).toHaveLength(3);
    const [g1, g2] = gaps();
    expect(g1).toBeGreaterThanOrEqual(190);
    expect(g1).toBeLessThan(400);
    expect(g2).toBeGreaterThanOrEqual(390);
    expect(g2).toBeLessThan(700);
    expect(elapsed).toBeLessThan(1500);

    expect(errors).toHaveLength(1);
    const { err, op } = errors[0]!;
    expect(op).toBe('trace.create');
    expect(err).toBeInstanceOf(IngestError);
    expect(err.kind).toBe('http');
    expect(err.status).toBe(503);
    expect(err.attempts).toBe(3);
    expect(err.message).toContain('unavailable');
    expect(err.operations).toEqual([{ op: 'trace.create', id: expect.any(String) }]);
    expect(c.stats().failedOperations).toBe(1);
  });

  it('retries a whole batch request on 5xx with the same schedule and reports it as `batch`', async () => {
    gw.setHandler(() => ({ status: 500 }));
    const { c, errors } = client({ flushIntervalMs: 10 });
    const t = c.startTrace({ name: 't' });
    t.startSpan({ name: 's' }).end();
    await c.flush();

    expect(gw.requests).toHaveLength(3);
    expect(gw.requests.every((r) => r.path === '/ingest/batch')).toBe(true);
    // every attempt carries the same operations in the same order
    expect(gw.requests.map((r) => r.body)).toEqual([gw.requests[0]!.body, gw.requests[0]!.body, gw.requests[0]!.body]);
    const [g1, g2] = gaps();
    expect(g1).toBeGreaterThanOrEqual(190);
    expect(g1).toBeLessThan(400);
    expect(g2).toBeGreaterThanOrEqual(390);
    expect(g2).toBeLessThan(700);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.op).toBe('batch');
    expect(errors[0]!.err.operations.map((o) => o.op)).toEqual(['trace.create', 'span.create', 'span.update']);
    expect(errors[0]!.err.attempts).toBe(3);
  });

  it('does not retry 4xx', async () => {
    gw.setHandler(() => ({
      status: 400,
      body: { success: false, error: 'Invalid body.name', code: 'validation_error' },
    }));
    const { c, errors } = client({ transport: 'single' });
    c.startTrace({ name: 't' });
    await c.flush();
    expect(gw.requests).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.err.status).toBe(400);
    expect(errors[0]!.err.retryable).toBe(false);
    expect(errors[0]!.err.attempts).toBe(1);
    expect(errors[0]!.err.message).toContain('Invalid body.name');
  });

  it('does not retry 4xx on the batch endpoint either (401)', async () => {
    gw.setHandler(() => ({ status: 401 }));
    const { c, errors } = client({ flushIntervalMs: 0 });
    c.startTrace({ name: 't' });
    await c.flush();
    expect(gw.requests).toHaveLength(1);
    expect(errors.map((e) => [e.op, e.err.status])).toEqual([['batch', 401]]);
  });

  it('retries dropped connections 3 times in total', async () => {
    gw.setHandler(() => 'destroy');
    const { c, errors } = client({ transport: 'single' });
    c.startTrace({ name: 't' });
    await c.flush();
    expect(gw.requests).toHaveLength(3);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.err.kind).toBe('network');
    expect(errors[0]!.err.attempts).toBe(3);
  });

  it('retries refused connections 3 times in total', async () => {
    const url = gw.url;
    await gw.close();
    const { c, errors } = client({ baseUrl: url, transport: 'single' });
    c.startTrace({ name: 't' });
    await c.flush();
    expect(attemptStarts).toHaveLength(3);
    const [g1, g2] = gaps();
    expect(g1).toBeGreaterThanOrEqual(190);
    expect(g1).toBeLessThan(400);
    expect(g2).toBeGreaterThanOrEqual(390);
    expect(g2).toBeLessThan(700);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.err.kind).toBe('network');
    expect(errors[0]!.err.attempts).toBe(3);
    gw = await startFakeGateway(); // for afterEach
  });

  it('times out a hanging server and retries 3 times in total', async () => {
    gw.setHandler(() => 'hang');
    const { c, errors } = client({ transport: 'single', timeoutMs: 150 });
    c.startTrace({ name: 't' });
    const started = performance.now();
    await c.flush();
    const elapsed = performance.now() - started;
    expect(gw.requests).toHaveLength(3);
    const [g1, g2] = gaps();
    // each gap = the 150 ms timeout + the backoff delay
    expect(g1).toBeGreaterThanOrEqual(150 + 190);
    expect(g1).toBeLessThan(150 + 400);
    expect(g2).toBeGreaterThanOrEqual(150 + 390);
    expect(g2).toBeLessThan(150 + 700);
    expect(elapsed).toBeGreaterThanOrEqual(3 * 150 + 600 - 20);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.err.kind).toBe('timeout');
    expect(errors[0]!.err.attempts).toBe(3);
  });

  it('succeeds on a later attempt without reporting anything', async () => {
    gw.setHandler((_req, n) => (n === 1 ? { status: 502 } : 'ok'));
    const { c, errors } = client({ transport: 'single' });
    c.startTrace({ name: 't' });
    await c.flush();
    expect(gw.requests).toHaveLength(2);
    expect(errors).toEqual([]);
    expect(c.stats()).toMatchObject({ sentOperations: 1, failedOperations: 0 });
  });

  it('replays the whole batch when an item fails with 5xx, and reports items that fail with 4xx', async () => {
    gw.setHandler((req, n) => {
      const ops = req.body.operations as Array<{ op: string; id: string }>;
      // attempt 1: item 1 hits a transient 503; attempt 2: item 2 is invalid (422)
      const results = ops.map((o, index) => ({
        index,
        id: o.id,
        status: n === 1 && index === 1 ? 503 : n === 2 && index === 2 ? 422 : 201,
        ...(n === 2 && index === 2 ? { error: 'bad span' } : {}),
      }));
      return { status: 207, body: { success: true, data: { results } } };
    });
    const { c, errors } = client({ flushIntervalMs: 10 });
    const t = c.startTrace({ name: 't' });
    const s = t.startSpan({ name: 's' });
    s.end();
    await c.flush();
    expect(gw.requests).toHaveLength(2);
    expect(gw.requests[1]!.body).toEqual(gw.requests[0]!.body);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.op).toBe('span.update');
    expect(errors[0]!.err.kind).toBe('item');
    expect(errors[0]!.err.status).toBe(422);
    expect(errors[0]!.err.message).toContain('bad span');
    expect(errors[0]!.err.operations).toEqual([{ op: 'span.update', id: s.id }]);
    expect(c.stats()).toMatchObject({ sentOperations: 2, failedOperations: 1 });
  });

  it('reports items still failing with 5xx after the last attempt', async () => {
    gw.setHandler((req) => ({
      status: 207,
      body: {
        success: true,
        data: { results: req.body.operations.map((_: unknown, index: number) => ({ index, status: 500 })) },
      },
    }));
    const { c, errors } = client({ flushIntervalMs: 0 });
    c.startTrace({ name: 't' });
    await c.flush();
    expect(gw.requests).toHaveLength(3);
    expect(errors.map((e) => [e.op, e.err.status, e.err.attempts])).toEqual([['trace.create', 500, 3]]);
  });

  it('falls back to single requests for good when the server has no batch endpoint', async () => {
    gw.setHandler((req) =>
      req.path === '/ingest/batch' ? { status: 404, body: { success: false, error: 'Route not found' } } : 'ok',
    );
    const { c, errors } = client({ flushIntervalMs: 10 });
    const t = c.startTrace({ name: 't' });
    t.end();
    await c.flush();
    t.update({ name: 'renamed' }); // after the fallback, straight to single requests
    await c.flush();
    expect(gw.requests.map((r) => `${r.method} ${r.path.replace(t.id, ':id')}`)).toEqual([
      'POST /ingest/batch',
      'POST /ingest/traces',
      'PATCH /ingest/traces/:id',
      'PATCH /ingest/traces/:id',
    ]);
    expect(errors).toEqual([]);
  });

  it('splits a batch the server finds too large (413)', async () => {
    gw.setHandler((req) => (req.path === '/ingest/batch' && req.body.operations.length > 1 ? { status: 413 } : 'ok'));
    const { c, errors } = client({ flushIntervalMs: 10 });
    const t = c.startTrace({ name: 't' });
    t.startSpan({ name: 'a' }).end();
    await c.flush();
    expect(wireOps(gw.requests.filter((r) => r.body.operations.length === 1)).map((o) => o.op)).toEqual([
      'trace.create',
      'span.create',
      'span.update',
    ]);
    expect(errors).toEqual([]);
  });

  it('flush resolves even when writes fail, and a throwing onError changes nothing', async () => {
    gw.setHandler(() => ({ status: 400 }));
    let calls = 0;
    const c = new GatewayClient({
      baseUrl: gw.url,
      apiKey: API_KEY,
      transport: 'single',
      onError: () => {
        calls++;
        throw new Error('hook bug');
      },
    });
    c.startTrace({ name: 'a' });
    c.startTrace({ name: 'b' });
    await expect(c.flush()).resolves.toBeUndefined();
    expect(calls).toBe(2);
    expect(gw.requests).toHaveLength(2);
  });

  it('without onError a failed write is dropped silently', async () => {
    gw.setHandler(() => ({ status: 500 }));
    const c = new GatewayClient({
      baseUrl: gw.url,
      apiKey: API_KEY,
      transport: 'single',
      retry: { initialDelayMs: 1 },
    });
    const t = c.startTrace({ name: 'a' });
    t.end();
    await expect(c.shutdown()).resolves.toBeUndefined();
    expect(gw.requests).toHaveLength(6);
    expect(c.stats().failedOperations).toBe(2);
  });

  it('sends the documented headers', async () => {
    const { c } = client({ transport: 'single' });
    c.startTrace({ name: 't' });
    await c.flush();
    expect(gw.requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(gw.requests[0]!.headers['content-type']).toBe('application/json');
  });
});
