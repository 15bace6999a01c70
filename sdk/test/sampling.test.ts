import { GatewayClient, seededRandom, type IngestError } from '../src';
import { API_KEY, recordingFetch, wireOps } from './helpers/gateway';

function client(sampleRate: number, extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) {
  const rec = recordingFetch();
  const errors: Array<{ err: IngestError; op: string }> = [];
  const c = new GatewayClient({
    baseUrl: 'http://gateway.test',
    apiKey: API_KEY,
    sampleRate,
    fetch: rec.fetch,
    flushIntervalMs: 0,
    maxQueueSize: 50_000, // 2,000 traces are recorded synchronously, before any send
    onError: (err, op) => errors.push({ err, op }),
    ...extra,
  });
  return { c, rec, errors };
}

/** A trace with two nested spans; returns the trace id. */
function recordTrace(c: GatewayClient, status: 'completed' | 'error'): string {
  const t = c.startTrace({ name: 'agent-run' });
  const a = t.startSpan({ name: 'plan', type: 'agent' });
  const b = a.startSpan({ name: 'call', type: 'llm' });
  b.end({ output: 'x' });
  a.end();
  t.end({ status });
  return t.id;
}

function tracesOnWire(requests: ReturnType<typeof recordingFetch>['requests']): Set<string> {
  return new Set(
    wireOps(requests)
      .filter((o) => o.op === 'trace.create')
      .map((o) => o.id),
  );
}

describe('sampleRate validation', () => {
  it.each([-0.1, 1.0001, NaN, Infinity, -Infinity, '0.5', null, true, {}])('rejects %p', (rate) => {
    expect(() => new GatewayClient({ baseUrl: 'http://x.test', apiKey: API_KEY, sampleRate: rate as number })).toThrow(
      /sampleRate/,
    );
  });

  it.each([0, 0.3, 1])('accepts %p', (rate) => {
    expect(new GatewayClient({ baseUrl: 'http://x.test', apiKey: API_KEY, sampleRate: rate }).sampleRate).toBe(rate);
  });

  it('defaults to 1', () => {
    expect(new GatewayClient({ baseUrl: 'http://x.test', apiKey: API_KEY }).sampleRate).toBe(1);
  });
});

describe('sampling statistics', () => {
  const N = 2_000;

  it('rate 1 keeps every trace and never consults the random source', async () => {
    const random = jest.fn(() => 0.999999);
    const { c, rec } = client(1, { random });
    const ids = Array.from({ length: N }, () => recordTrace(c, 'completed'));
    await c.flush();
    expect(tracesOnWire(rec.requests)).toEqual(new Set(ids));
    expect(wireOps(rec.requests)).toHaveLength(N * 6);
    expect(random).not.toHaveBeenCalled();
  });

  it('rate 0 sends no completed trace at all', async () => {
    const random = jest.fn(() => 0);
    const { c, rec } = client(0, { random });
    for (let i = 0; i < N; i++) recordTrace(c, 'completed');
    await c.flush();
    expect(rec.requests).toHaveLength(0);
    expect(random).not.toHaveBeenCalled();
    expect(c.stats()).toMatchObject({ tracesStarted: N, tracesSampledOut: N, tracesDiscarded: N, tracesReplayed: 0 });
  });

  it.each([1, 42, 2024])('rate 0.3 keeps 30%% of successful traces (seed %p)', async (seed) => {
    const { c, rec } = client(0.3, { random: seededRandom(seed) });
    for (let i = 0; i < N; i++) recordTrace(c, 'completed');
    await c.flush();
    const kept = tracesOnWire(rec.requests).size / N;
    // binomial sd at n=2000 is ~0.0102; 4 sd of room
    expect(kept).toBeGreaterThan(0.3 - 0.041);
    expect(kept).toBeLessThan(0.3 + 0.041);
    // kept traces are complete: 6 operations each
    expect(wireOps(rec.requests)).toHaveLength(tracesOnWire(rec.requests).size * 6);
  });

  it('keeps every error trace and the configured fraction of the rest', async () => {
    const { c, rec } = client(0.3, { random: seededRandom(7) });
    const errorIds: string[] = [];
    let completed = 0;
    for (let i = 0; i < N; i++) {
      if (i % 4 === 0) errorIds.push(recordTrace(c, 'error'));
      else {
        recordTrace(c, 'completed');
        completed++;
      }
    }
    await c.flush();
    const onWire = tracesOnWire(rec.requests);
    for (const id of errorIds) expect(onWire.has(id)).toBe(true);
    const keptCompleted = (onWire.size - errorIds.length) / completed;
    expect(keptCompleted).toBeGreaterThan(0.3 - 0.05);
    expect(keptCompleted).toBeLessThan(0.3 + 0.05);
    // every error trace ends with status error on the wire
    const ends = wireOps(rec.requests).filter((o) => o.op === 'trace.update' && o.body.status === 'error');
    expect(new Set(ends.map((o) => o.id))).toEqual(new Set(errorIds));
  });

  it('decides once per trace: a sampled-in trace sends every span whatever the random source says later', async () => {
    const values = [0.1, 0.9, 0.9, 0.9, 0.9];
    const { c, rec } = client(0.5, { random: () => values.shift() ?? 0.9 });
    recordTrace(c, 'completed');
    await c.flush();
    expect(wireOps(rec.requests).map((o) => o.op)).toEqual([
      'trace.create',
      'span.create',
      'span.create',
      'span.update',
      'span.update',
      'trace.update',
    ]);
  });
});

describe('sampled-out traces', () => {
  it.each(['batch', 'single'] as const)(
    'an error trace is replayed in FIFO order, then the trace end is sent (%s)',
    async (transport) => {
      const { c, rec, errors } = client(0, { transport });
      const t = c.startTrace({ name: 'run', input: { q: 'hi' }, metadata: { env: 'test' } });
      const a = t.startSpan({ name: 'a', type: 'agent' });
      const b = a.startSpan({ name: 'b', type: 'tool', input: 1 });
      b.update({ output: 'partial' });
      b.end({ status: 'error', output: 'boom' });
      const c2 = t.startSpan({ name: 'c', type: 'retrieval' });
      a.end();
      c2.end();
      await c.flush();
      expect(rec.requests).toHaveLength(0); // still buffered: the trace has not ended

      t.end({ status: 'error', output: 'failed' });
      await c.flush();
      const ops = wireOps(rec.requests);
      expect(ops.map((o) => `${o.op}:${o.id}`)).toEqual([
        `trace.create:${t.id}`,
        `span.create:${a.id}`,
        `span.create:${b.id}`,
        `span.update:${b.id}`,
        `span.update:${b.id}`,
        `span.create:${c2.id}`,
        `span.update:${a.id}`,
        `span.update:${c2.id}`,
        `trace.update:${t.id}`,
      ]);
      expect(ops[0]!.body).toMatchObject({ id: t.id, name: 'run', input: { q: 'hi' }, metadata: { env: 'test' } });
      expect(ops[2]!.body).toMatchObject({ parent_span_id: a.id, trace_id: t.id, span_type: 'tool' });
      expect(ops.at(-1)!.body).toMatchObject({ status: 'error', output: 'failed', end_time: expect.any(String) });
      expect(ops.at(-1)!.body.metadata).toBeUndefined();
      expect(errors).toEqual([]);
      expect(c.stats()).toMatchObject({ tracesReplayed: 1, tracesDiscarded: 0 });
    },
  );

  it('replayed operations keep the times they were recorded at', async () => {
    const { c, rec } = client(0);
    const t = c.startTrace({ name: 'run' });
    const s = t.startSpan({ name: 's' });
    const recordedAt = Date.now();
    await new Promise((r) => setTimeout(r, 30));
    s.end();
    await new Promise((r) => setTimeout(r, 30));
    t.end({ status: 'error' });
    await c.flush();
    const ops = wireOps(rec.requests);
    expect(Math.abs(Date.parse(ops[1]!.body.start_time) - recordedAt)).toBeLessThan(15);
    expect(Date.parse(ops[2]!.body.end_time)).toBeLessThan(Date.parse(ops[3]!.body.end_time));
  });

  it('a completed sampled-out trace makes no request at all, even for spans after its end', async () => {
    const { c, rec } = client(0, { transport: 'single' });
    const t = c.startTrace({ name: 'quiet' });
    const s = t.startSpan({ name: 's', input: 'x'.repeat(1000) });
    s.end({ status: 'error' }); // a failing span does not make the trace an error trace
    t.end({ status: 'completed' });
    t.startSpan({ name: 'late' }).end();
    t.end({ status: 'error' }); // ignored: a trace ends once
    await c.flush();
    await c.shutdown();
    expect(rec.requests).toHaveLength(0);
  });

  it('after an error replay, later writes to the trace are sent directly', async () => {
    const { c, rec } = client(0);
    const t = c.startTrace({ name: 'run' });
    t.end({ status: 'error' });
    t.update({ name: 'renamed' });
    await c.flush();
    expect(wireOps(rec.requests).map((o) => o.op)).toEqual(['trace.create', 'trace.update', 'trace.update']);
  });

  it('buffers at most 1,000 operations per trace: keeps the first, counts the rest, reports it', async () => {
    const { c, rec, errors } = client(0, { maxBatchSize: 500 });
    const t = c.startTrace({ name: 'long', metadata: { owner: 'me' } });
    const spans = [];
    for (let i = 0; i < 600; i++) {
      const s = t.startSpan({ name: `s${i}` });
      spans.push(s);
      s.end({ output: i });
    }
    // 1 trace create + 1,200 span operations = 1,201 recorded, 1,000 kept
    t.end({ status: 'error', metadata: { reason: 'x' } });
    await c.flush();
    const ops = wireOps(rec.requests);
    expect(ops).toHaveLength(1_001);
    expect(ops[0]!.op).toBe('trace.create');
    // the kept 999 span operations are the first ones, in order
    const expected = spans.flatMap((s) => [`span.create:${s.id}`, `span.update:${s.id}`]).slice(0, 999);
    expect(ops.slice(1, 1_000).map((o) => `${o.op}:${o.id}`)).toEqual(expected);
    const end = ops[1_000]!;
    expect(end.op).toBe('trace.update');
    expect(end.body.status).toBe('error');
    expect(end.body.metadata).toEqual({ owner: 'me', reason: 'x', sdk_dropped_operations: 201 });
    expect(c.stats().bufferDroppedOperations).toBe(201);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.op).toBe('buffer');
    expect(errors[0]!.err.kind).toBe('buffer_overflow');
    expect(errors[0]!.err.message).toContain('201');
  });

  it('the buffer cap is configurable', async () => {
    const { c, rec } = client(0, { maxBufferedOperations: 3 });
    const t = c.startTrace({ name: 't' });
    for (let i = 0; i < 5; i++) t.startSpan({ name: `s${i}` });
    t.end({ status: 'error' });
    await c.flush();
    expect(wireOps(rec.requests).map((o) => o.op)).toEqual([
      'trace.create',
      'span.create',
      'span.create',
      'trace.update',
    ]);
  });

  it('a standalone withSpan (own trace) follows the same rule', async () => {
    const { c, rec } = client(0);
    await c.withSpan({ name: 'ok' }, async () => 1);
    await expect(
      c.withSpan({ name: 'bad' }, async () => {
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    await c.flush();
    const ops = wireOps(rec.requests);
    expect(ops.map((o) => o.op)).toEqual(['trace.create', 'span.create', 'span.update', 'trace.update']);
    expect(ops[0]!.body.name).toBe('bad');
    expect(ops[3]!.body.status).toBe('error');
  });

  it('shutdown discards open sampled-out traces', async () => {
    const { c, rec } = client(0);
    const t = c.startTrace({ name: 'open' });
    t.startSpan({ name: 's' });
    await c.shutdown();
    t.end({ status: 'error' });
    await c.flush();
    expect(rec.requests).toHaveLength(0);
  });
});
