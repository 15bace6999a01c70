import { GatewayClient } from '../src';
import { API_KEY, ISO, recordedClient } from './helpers/gateway';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('construction', () => {
  const base = { baseUrl: 'http://gw.test', apiKey: API_KEY };
  it('validates the configuration', () => {
    expect(() => new GatewayClient({ ...base, apiKey: 'sk-123' })).toThrow(/sl_live_/);
    expect(() => new GatewayClient({ ...base, apiKey: 'sl_live_' })).toThrow(/sl_live_/);
    expect(() => new GatewayClient({ ...base, baseUrl: 'not a url' })).toThrow(/baseUrl/);
    expect(() => new GatewayClient({ ...base, baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(() => new GatewayClient({ ...base, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => new GatewayClient({ ...base, timeoutMs: 1.5 })).toThrow(/timeoutMs/);
    expect(() => new GatewayClient({ ...base, maxBatchSize: -1 })).toThrow(/maxBatchSize/);
    expect(() => new GatewayClient({ ...base, transport: 'grpc' as never })).toThrow(/transport/);
    expect(() => new GatewayClient({ ...base, onError: 'x' as never })).toThrow(/onError/);
    expect(() => new GatewayClient({ ...base, retry: { attempts: 0 } })).toThrow(/retry.attempts/);
    expect(() => new GatewayClient(undefined as never)).toThrow();
  });

  it('strips trailing slashes from the base URL', () => {
    expect(new GatewayClient({ ...base, baseUrl: 'https://gw.test/api///' }).baseUrl).toBe('https://gw.test/api');
  });
});

describe('traces and spans on the wire', () => {
  it('sends snake_case bodies with client-generated UUIDs and nesting', async () => {
    const { c, ops, errors } = recordedClient();
    const t = c.startTrace({
      name: 'chat',
      sessionId: 'sess-1',
      userId: 'u-1',
      metadata: { env: 'dev' },
      input: { q: 'hi' },
    });
    const agent = t.startSpan({ name: 'agent', type: 'agent', input: 'task' });
    const llm = agent.startSpan({
      name: 'llm',
      type: 'llm',
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: 'hi' }],
    });
    llm.end({ output: 'hello', promptTokens: 10, completionTokens: 5 });
    agent.end({ output: 'done' });
    t.end({ output: { a: 'hello' } });
    await c.flush();

    const wire = ops();
    expect(wire.map((o) => o.op)).toEqual([
      'trace.create',
      'span.create',
      'span.create',
      'span.update',
      'span.update',
      'trace.update',
    ]);
    expect(t.id).toMatch(UUID);
    expect(wire[0]).toEqual({
      op: 'trace.create',
      id: t.id,
      body: {
        id: t.id,
        name: 'chat',
        session_id: 'sess-1',
        user_id: 'u-1',
        metadata: { env: 'dev' },
        input: { q: 'hi' },
        start_time: expect.stringMatching(ISO),
      },
    });
    expect(wire[1]!.body).toEqual({
      id: agent.id,
      trace_id: t.id,
      name: 'agent',
      span_type: 'agent',
      input: 'task',
      start_time: expect.stringMatching(ISO),
    });
    expect(wire[2]!.body).toEqual({
      id: llm.id,
      trace_id: t.id,
      parent_span_id: agent.id,
      name: 'llm',
      span_type: 'llm',
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: 'hi' }],
      start_time: expect.stringMatching(ISO),
    });
    expect(wire[3]).toEqual({
      op: 'span.update',
      id: llm.id,
      body: {
        output: 'hello',
        status: 'ok',
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        end_time: expect.stringMatching(ISO),
      },
    });
    expect(wire[5]).toEqual({
      op: 'trace.update',
      id: t.id,
      body: { status: 'completed', output: { a: 'hello' }, end_time: expect.stringMatching(ISO) },
    });
    expect(errors).toEqual([]);
    expect(c.stats()).toMatchObject({ sentOperations: 6, failedOperations: 0, tracesStarted: 1 });
  });

  it('ends spans and traces once; defaults are ok / completed / other', async () => {
    const { c, ops } = recordedClient();
    const t = c.startTrace({ name: 't' });
    const s = t.startSpan({ name: 's', type: 'bogus' as never });
    s.end();
    s.end({ status: 'error' });
    t.end();
    t.end({ status: 'error' });
    await c.flush();
    const wire = ops();
    expect(wire).toHaveLength(4);
    expect(wire[1]!.body.span_type).toBe('other');
    expect(wire[2]!.body.status).toBe('ok');
    expect(wire[3]!.body.status).toBe('completed');
    expect(s.isEnded && t.isEnded).toBe(true);
  });

  it('merges metadata client-side so a replacing PATCH keeps earlier keys', async () => {
    const { c, ops } = recordedClient();
    const t = c.startTrace({ name: 't', metadata: { a: 1 } });
    const s = t.startSpan({ name: 's', metadata: { x: 1 } });
    s.update({ metadata: { y: 2 } });
    s.end({ metadata: { z: 3 } });
    t.update({ metadata: { b: 2 } });
    t.end({ metadata: { c: 3 } });
    await c.flush();
    const wire = ops();
    expect(wire[2]!.body.metadata).toEqual({ x: 1, y: 2 });
    expect(wire[3]!.body.metadata).toEqual({ x: 1, y: 2, z: 3 });
    expect(wire[4]!.body.metadata).toEqual({ a: 1, b: 2 });
    expect(wire[5]!.body.metadata).toEqual({ a: 1, b: 2, c: 3 });
  });
});

describe('withTrace / withSpan / traced', () => {
  it('nests through async context, and records output or error', async () => {
    const { c, ops } = recordedClient();
    const result = await c.withTrace({ name: 'run' }, async (trace) => {
      const a = await c.withSpan({ name: 'outer', type: 'chain' }, async (outer) => {
        expect(c.currentSpan()).toBe(outer);
        expect(c.currentTrace()).toBe(trace);
        await new Promise((r) => setTimeout(r, 5));
        return c.withSpan({ name: 'inner', type: 'tool' }, async () => 41);
      });
      await expect(
        c.withSpan({ name: 'failing' }, async () => {
          throw new TypeError('bad input');
        }),
      ).rejects.toThrow(TypeError);
      return a + 1;
    });
    expect(result).toBe(42);
    await c.flush();

    const wire = ops();
    const created = wire.filter((o) => o.op === 'span.create');
    const byName = Object.fromEntries(created.map((o) => [o.body.name, o.body]));
    const traceId = wire[0]!.id;
    expect(byName.outer.parent_span_id).toBeUndefined();
    expect(byName.outer.trace_id).toBe(traceId);
    expect(byName.inner.parent_span_id).toBe(byName.outer.id);
    expect(byName.failing.parent_span_id).toBeUndefined();

    const ended = Object.fromEntries(wire.filter((o) => o.op === 'span.update').map((o) => [o.id, o.body]));
    expect(ended[byName.inner.id]).toMatchObject({ status: 'ok', output: 41 });
    expect(ended[byName.outer.id]).toMatchObject({ status: 'ok', output: 41 });
    expect(ended[byName.failing.id]).toMatchObject({
      status: 'error',
      output: { error: { name: 'TypeError', message: 'bad input' } },
    });
    expect(wire.at(-1)).toMatchObject({ op: 'trace.update', body: { status: 'completed', output: 42 } });
  });

  it('withTrace ends the trace as error and rethrows the same error', async () => {
    const { c, ops } = recordedClient();
    const boom = new Error('boom');
    await expect(
      c.withTrace({ name: 'run' }, () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    await c.flush();
    expect(ops().at(-1)!.body).toMatchObject({
      status: 'error',
      output: { error: { name: 'Error', message: 'boom' } },
    });
  });

  it('keeps parallel branches apart', async () => {
    const { c, ops } = recordedClient();
    await c.withTrace({ name: 'run' }, async () => {
      await Promise.all(
        ['a', 'b', 'c'].map((name) =>
          c.withSpan({ name }, async () => {
            await new Promise((r) => setTimeout(r, Math.random() * 10));
            await c.withSpan({ name: `${name}-child` }, async () => name);
          }),
        ),
      );
    });
    await c.flush();
    const created = ops()
      .filter((o) => o.op === 'span.create')
      .map((o) => o.body);
    const byName = Object.fromEntries(created.map((b) => [b.name, b]));
    for (const name of ['a', 'b', 'c']) expect(byName[`${name}-child`].parent_span_id).toBe(byName[name].id);
  });

  it('a span that fn already ended keeps its own end', async () => {
    const { c, ops } = recordedClient();
    await c.withSpan({ name: 's' }, async (span) => {
      span.end({ output: 'mine', status: 'error' });
      return 'ignored';
    });
    await c.flush();
    const ends = ops().filter((o) => o.op === 'span.update');
    expect(ends).toHaveLength(1);
    expect(ends[0]!.body).toMatchObject({ output: 'mine', status: 'error' });
  });

  it('traced wraps a function: arguments as input, result as output, `this` preserved', async () => {
    const { c, ops } = recordedClient();
    const obj = {
      factor: 3,
      mul: c.traced({ name: 'mul', type: 'tool' }, async function (this: { factor: number }, a: number, b: number) {
        return a * b * this.factor;
      }),
      one: c.traced({ name: 'one' }, (x: string) => x.toUpperCase()),
    };
    await expect(obj.mul(2, 5)).resolves.toBe(30);
    await expect(obj.one('hi')).resolves.toBe('HI');
    await c.flush();
    const creates = ops().filter((o) => o.op === 'span.create');
    expect(creates.map((o) => o.body.input)).toEqual([[2, 5], 'hi']);
    const ends = ops().filter((o) => o.op === 'span.update');
    expect(ends.map((o) => o.body.output)).toEqual([30, 'HI']);
  });

  it('a standalone withSpan gets a trace of its own, named after it', async () => {
    const { c, ops } = recordedClient();
    await c.withSpan({ name: 'solo', type: 'tool', input: 'q' }, async () => 'a');
    await c.flush();
    const wire = ops();
    expect(wire.map((o) => o.op)).toEqual(['trace.create', 'span.create', 'span.update', 'trace.update']);
    expect(wire[0]!.body).toMatchObject({ name: 'solo', input: 'q' });
    expect(wire[1]!.body.trace_id).toBe(wire[0]!.id);
    expect(wire[3]!.body).toMatchObject({ status: 'completed', output: 'a' });
  });

  it("another client's active trace is not used as a parent", async () => {
    const a = recordedClient();
    const b = recordedClient();
    await a.c.withTrace({ name: 'a' }, async () => {
      await b.c.withSpan({ name: 'b-span' }, async () => 1);
    });
    await Promise.all([a.c.flush(), b.c.flush()]);
    expect(b.ops().map((o) => o.op)).toEqual(['trace.create', 'span.create', 'span.update', 'trace.update']);
    expect(a.ops().map((o) => o.op)).toEqual(['trace.create', 'trace.update']);
  });
});
