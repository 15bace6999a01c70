import OpenAI from 'openai';
import { GatewayClient, wrapOpenAI } from '../src';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai';
import { API_KEY, recordingFetch, wireOps } from './helpers/gateway';

/** The real `openai` client against a local fake OpenAI server; gateway writes recorded in-process. */
describe('wrapOpenAI', () => {
  let fake: FakeOpenAI;
  let rec: ReturnType<typeof recordingFetch>;
  let tracer: GatewayClient;
  let raw: OpenAI;
  let openai: OpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    rec = recordingFetch();
    tracer = new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, fetch: rec.fetch, flushIntervalMs: 0 });
    raw = new OpenAI({ apiKey: 'sk-test', baseURL: fake.url, maxRetries: 0 });
    openai = wrapOpenAI(raw, tracer);
  });

  /** The llm span: its create body merged with its final update body. */
  async function llmSpans() {
    await tracer.flush();
    const ops = wireOps(rec.requests);
    return ops
      .filter((o) => o.op === 'span.create' && o.body.span_type === 'llm')
      .map((create) => {
        const updates = ops.filter((o) => o.op === 'span.update' && o.id === create.id).map((o) => o.body);
        return Object.assign({}, create.body, ...updates);
      });
  }

  const messages = [
    { role: 'system' as const, content: 'be brief' },
    { role: 'user' as const, content: 'hello' },
  ];

  it('records a chat completion as an llm span under the active span', async () => {
    let parentId = '';
    const reply = await tracer.withTrace({ name: 'agent' }, async () =>
      tracer.withSpan({ name: 'step', type: 'agent' }, async (step) => {
        parentId = step.id;
        return openai.chat.completions.create({ model: 'gpt-4o', messages, temperature: 0.2, max_tokens: 50 });
      }),
    );
    expect(reply.choices[0]!.message.content).toBe('echo: hello');

    const [span] = await llmSpans();
    expect(span).toMatchObject({
      name: 'chat gpt-4o',
      span_type: 'llm',
      parent_span_id: parentId,
      model: 'gpt-4o-2024-08-06', // the model that answered
      input: messages,
      output: { role: 'assistant', content: 'echo: hello', refusal: null },
      status: 'ok',
      prompt_tokens: 12,
      completion_tokens: 7,
      total_tokens: 19,
      metadata: {
        provider: 'openai',
        stream: false,
        params: { temperature: 0.2, max_tokens: 50 },
        response_id: 'chatcmpl-1',
        finish_reason: 'stop',
      },
      start_time: expect.any(String),
      end_time: expect.any(String),
    });
    expect(fake.requests[0]).toMatchObject({ model: 'gpt-4o', messages });
  });

  it('records a streamed completion when the stream is consumed', async () => {
    const pieces: string[] = [];
    await tracer.withTrace({ name: 'agent' }, async () => {
      const stream = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? '');
    });
    expect(pieces.join('')).toBe('echo: hello');

    const [span] = await llmSpans();
    expect(span).toMatchObject({
      span_type: 'llm',
      model: 'gpt-4o-mini-2024-08-06',
      input: messages,
      output: { role: 'assistant', content: 'echo: hello' },
      status: 'ok',
      prompt_tokens: 12,
      completion_tokens: 9,
      total_tokens: 21,
      metadata: { stream: true, finish_reason: 'stop', response_id: 'chatcmpl-2' },
    });
  });

  it('assembles streamed tool calls', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages,
      stream: true,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
    });
    for await (const _ of stream) void _;
    const [span] = await llmSpans();
    expect(span.output).toEqual({
      role: 'assistant',
      content: 'echo: hello',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
    });
    expect(span.metadata.finish_reason).toBe('tool_calls');
    expect(span.prompt_tokens).toBeUndefined(); // no usage without stream_options.include_usage
  });

  it('marks a stream the caller stops early', async () => {
    const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages, stream: true });
    for await (const _ of stream) break;
    const [span] = await llmSpans();
    expect(span.status).toBe('ok');
    expect(span.metadata.stream_aborted).toBe(true);
  });

  it('records a failing call as an error span and rethrows the original error', async () => {
    fake.failNext(400, 'model not found');
    const err = await tracer
      .withTrace({ name: 'agent' }, () => openai.chat.completions.create({ model: 'nope', messages }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);

    const [span] = await llmSpans();
    expect(span.status).toBe('error');
    expect(span.output.error.message).toContain('model not found');
    expect(span.metadata.error_status).toBe(400);
    const traceEnd = wireOps(rec.requests).at(-1)!;
    expect(traceEnd.body.status).toBe('error');
  });

  it('outside a trace, a call gets a trace of its own', async () => {
    await openai.chat.completions.create({ model: 'gpt-4o', messages });
    await tracer.flush();
    const ops = wireOps(rec.requests);
    expect(ops.map((o) => o.op)).toEqual(['trace.create', 'span.create', 'span.update', 'trace.update']);
    expect(ops[3]!.body.status).toBe('completed');
  });

  it('keeps the openai promise helpers and leaves the original client alone', async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'gpt-4o', messages }).withResponse();
    expect(data.choices[0]!.message.content).toBe('echo: hello');
    expect(response.headers.get('x-request-id')).toBe('req_123');
    expect(await llmSpans()).toHaveLength(1);

    await raw.chat.completions.create({ model: 'gpt-4o', messages });
    expect(await llmSpans()).toHaveLength(1); // the unwrapped client records nothing
    expect(openai.baseURL).toBe(raw.baseURL);
    expect(openai.chat.completions).toBe(openai.chat.completions); // stable identity
  });

  it('a gateway outage never affects the OpenAI call', async () => {
    const down = new GatewayClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: API_KEY,
      retry: { initialDelayMs: 1 },
      fetch: (async () => {
        throw new TypeError('fetch failed');
      }) as typeof fetch,
    });
    const wrapped = wrapOpenAI(raw, down);
    const reply = await wrapped.chat.completions.create({ model: 'gpt-4o', messages });
    expect(reply.choices[0]!.message.content).toBe('echo: hello');
    await expect(down.shutdown()).resolves.toBeUndefined();
  });
});
