import { GatewayClient, wrapTool } from '../src';
import { API_KEY, recordingFetch, wireOps } from './helpers/gateway';

describe('wrapTool', () => {
  function setup() {
    const rec = recordingFetch();
    const tracer = new GatewayClient({
      baseUrl: 'http://gw.test',
      apiKey: API_KEY,
      fetch: rec.fetch,
      flushIntervalMs: 0,
    });
    const spans = async () => {
      await tracer.flush();
      const ops = wireOps(rec.requests);
      return ops
        .filter((o) => o.op === 'span.create')
        .map((c) =>
          Object.assign({}, c.body, ...ops.filter((o) => o.op === 'span.update' && o.id === c.id).map((o) => o.body)),
        );
    };
    return { rec, tracer, spans };
  }

  const search = wrapTool(async (query: string) => [`doc about ${query}`], { name: 'search_docs', type: 'retrieval' });
  const add = wrapTool((a: number, b: number) => a + b, { name: 'add' });
  const fail = wrapTool(
    async (_: string) => {
      throw new RangeError('out of range');
    },
    { name: 'fail' },
  );

  it('records tool and retrieval calls nested under the active span', async () => {
    const { tracer, spans } = setup();
    let agentId = '';
    await tracer.withTrace({ name: 'agent' }, async () => {
      await tracer.withSpan({ name: 'step', type: 'agent' }, async (step) => {
        agentId = step.id;
        await expect(search('llamas')).resolves.toEqual(['doc about llamas']);
        await expect(add(2, 3)).resolves.toBe(5);
      });
    });
    const recorded = await spans();
    const byName = Object.fromEntries(recorded.map((s) => [s.name, s]));
    expect(byName.search_docs).toMatchObject({
      span_type: 'retrieval',
      parent_span_id: agentId,
      input: 'llamas',
      output: ['doc about llamas'],
      status: 'ok',
    });
    expect(byName.add).toMatchObject({
      span_type: 'tool',
      parent_span_id: agentId,
      input: [2, 3],
      output: 5,
      status: 'ok',
    });
  });

  it('marks a throwing tool as error and rethrows the same error', async () => {
    const { tracer, spans } = setup();
    await tracer.withTrace({ name: 'agent' }, async () => {
      await expect(fail('x')).rejects.toThrow(RangeError);
    });
    const [span] = await spans();
    expect(span).toMatchObject({
      name: 'fail',
      status: 'error',
      output: { error: { name: 'RangeError', message: 'out of range' } },
    });
  });

  it('outside any trace: records with options.tracer, or just calls through', async () => {
    const { tracer, rec, spans } = setup();
    await expect(add(1, 1)).resolves.toBe(2);
    await tracer.flush();
    expect(rec.requests).toHaveLength(0);

    const withTracer = wrapTool((q: string) => q.length, { name: 'len', tracer });
    await expect(withTracer('abcd')).resolves.toBe(4);
    const [span] = await spans();
    expect(span).toMatchObject({ name: 'len', span_type: 'tool', output: 4 });
    expect(wireOps(rec.requests).map((o) => o.op)).toEqual([
      'trace.create',
      'span.create',
      'span.update',
      'trace.update',
    ]);
  });

  it('passes `this` through', async () => {
    const { tracer } = setup();
    const obj = {
      prefix: '>',
      say: wrapTool(
        function (this: { prefix: string }, s: string) {
          return this.prefix + s;
        },
        { name: 'say', tracer },
      ),
    };
    await expect(obj.say('hi')).resolves.toBe('>hi');
  });
});
