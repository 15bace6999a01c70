import { GatewayClient, type IngestError } from '../src';
import { API_KEY, ISO, recordedClient, recordingFetch, wireOps } from './helpers/gateway';

describe('never throwing into caller code', () => {
  it('survives hostile values and misuse', async () => {
    const { c, ops, errors } = recordedClient();
    const circular: Record<string, unknown> = { n: 1 };
    circular.self = circular;
    const t = c.startTrace({ name: 't', input: circular, metadata: { big: 2n } as never, startTime: new Date('nope') });
    const s = t.startSpan(undefined as never);
    s.update({ output: { toJSON: () => ({ ok: 1 }) } });
    s.end({ endTime: new Date(NaN), output: Symbol('x') });
    t.startSpan({ name: 42 as never });
    t.end({ status: 'weird' as never });
    await c.flush();
    const wire = ops();
    expect(wire[0]!.body.input).toEqual({ n: 1, self: '[Circular]' });
    expect(wire[0]!.body.metadata).toEqual({ big: '2' });
    expect(wire[0]!.body.start_time).toMatch(ISO);
    expect(wire[1]!.body.name).toBe('span');
    expect(wire[2]!.body.output).toEqual({ ok: 1 });
    expect(wire[4]!.body.name).toBe('42');
    expect(wire.at(-1)!.body.status).toBe('completed');
    expect(errors).toEqual([]);
  });

  it('a fetch that throws synchronously is just a failed write', async () => {
    const errors: IngestError[] = [];
    const c = new GatewayClient({
      baseUrl: 'http://gw.test',
      apiKey: API_KEY,
      transport: 'single',
      retry: { initialDelayMs: 1 },
      fetch: (() => {
        throw new TypeError('fetch exploded');
      }) as typeof fetch,
      onError: (err) => errors.push(err),
    });
    expect(() => c.startTrace({ name: 't' }).end()).not.toThrow();
    await expect(c.flush()).resolves.toBeUndefined();
    expect(errors.map((e) => [e.kind, e.attempts])).toEqual([
      ['network', 3],
      ['network', 3],
    ]);
  });

  it('calls return immediately, before any network round trip', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const rec = recordingFetch();
    const slowFetch = (async (input: string | URL | Request, init?: RequestInit) => {
      await gate;
      return rec.fetch(input, init);
    }) as typeof fetch;
    const c = new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, fetch: slowFetch, flushIntervalMs: 0 });
    const started = performance.now();
    const value = await c.withTrace({ name: 't' }, async () => c.withSpan({ name: 's' }, async () => 'v'));
    expect(value).toBe('v');
    expect(performance.now() - started).toBeLessThan(100);
    expect(rec.requests).toHaveLength(0);
    release();
    await c.flush();
    expect(wireOps(rec.requests)).toHaveLength(4);
  });

  it('after shutdown, calls are accepted and ignored', async () => {
    const { c, rec } = recordedClient();
    c.startTrace({ name: 'before' });
    await c.shutdown();
    const sent = rec.requests.length;
    expect(sent).toBe(1);
    const t = c.startTrace({ name: 'after' });
    t.startSpan({ name: 's' }).end();
    t.end({ status: 'error' });
    await expect(c.withSpan({ name: 'x' }, async () => 5)).resolves.toBe(5);
    await c.flush();
    await c.shutdown();
    expect(rec.requests).toHaveLength(sent);
  });
});
