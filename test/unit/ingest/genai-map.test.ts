import { decodeProtobuf, encodeRequest } from '../../../src/ingest/otlp/decode';
import { mapGenAi } from '../../../src/ingest/otlp/genai';
import { mapExportRequest } from '../../../src/ingest/otlp/map';
import type { IngestOp } from '../../../src/ingest/types';
import { exportRequest, hex, span } from './otlp-fixtures';

const MB = 1024 * 1024;
const byId = (ops: IngestOp[], kind: IngestOp['op'], id: string) => ops.find((o) => o.op === kind && o.id === id);

// The OTLP decoding is in otlp-map.test.ts.
describe('gen_ai semantic conventions', () => {
  it('maps operation names to span types', () => {
    const type = (attrs: Record<string, unknown>) => mapGenAi(attrs, []).spanType;
    expect(type({ 'gen_ai.operation.name': 'chat' })).toBe('llm');
    expect(type({ 'gen_ai.operation.name': 'text_completion' })).toBe('llm');
    expect(type({ 'gen_ai.operation.name': 'generate_content' })).toBe('llm');
    expect(type({ 'gen_ai.operation.name': 'embeddings' })).toBe('embedding');
    expect(type({ 'gen_ai.operation.name': 'execute_tool' })).toBe('tool');
    expect(type({ 'gen_ai.operation.name': 'invoke_agent' })).toBe('agent');
    expect(type({ 'gen_ai.operation.name': 'create_agent' })).toBe('agent');
    expect(type({ 'openinference.span.kind': 'RETRIEVER' })).toBe('retrieval');
    expect(type({ 'openinference.span.kind': 'CHAIN' })).toBe('chain');
    expect(type({ 'traceloop.span.kind': 'workflow' })).toBe('chain');
    expect(type({ 'traceloop.span.kind': 'tool' })).toBe('tool');
    expect(type({ 'gen_ai.request.model': 'gpt-4o' })).toBe('llm');
    expect(type({ 'db.system': 'pinecone' })).toBe('retrieval');
    expect(type({ 'http.method': 'GET' })).toBe('other');
  });

  it('reads the model (response over request) and token usage in current and older names', () => {
    const g = mapGenAi(
      {
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 7,
      },
      [],
    );
    expect(g).toMatchObject({ model: 'gpt-4o-2024-08-06', promptTokens: 12, completionTokens: 7, totalTokens: 19 });
    const old = mapGenAi(
      {
        'gen_ai.request.model': 'gpt-4',
        'gen_ai.usage.prompt_tokens': 5,
        'gen_ai.usage.completion_tokens': 6,
        'llm.usage.total_tokens': 20,
      },
      [],
    );
    expect(old).toMatchObject({ model: 'gpt-4', promptTokens: 5, completionTokens: 6, totalTokens: 20 });
    expect(mapGenAi({ 'gen_ai.usage.input_tokens': -3 }, []).promptTokens).toBeUndefined();
  });

  it('takes content from gen_ai.input/output.messages (JSON strings) and leaves it out of the metadata', () => {
    const messages = [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }];
    const g = mapGenAi(
      {
        'gen_ai.input.messages': JSON.stringify(messages),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [] }]),
      },
      [],
    );
    expect(g.input).toEqual(messages);
    expect(g.output).toEqual([{ role: 'assistant', parts: [] }]);
    expect([...g.consumedKeys].sort()).toEqual(['gen_ai.input.messages', 'gen_ai.output.messages']);
  });

  it('takes content from gen_ai.prompt / gen_ai.completion and their indexed form', () => {
    expect(mapGenAi({ 'gen_ai.prompt': 'plain prompt', 'gen_ai.completion': 'plain answer' }, [])).toMatchObject({
      input: 'plain prompt',
      output: 'plain answer',
    });
    const g = mapGenAi(
      {
        'gen_ai.prompt.0.role': 'system',
        'gen_ai.prompt.0.content': 'be brief',
        'gen_ai.prompt.1.role': 'user',
        'gen_ai.prompt.1.content': 'hi',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'hello',
      },
      [],
    );
    expect(g.input).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(g.output).toEqual([{ role: 'assistant', content: 'hello' }]);
  });

  it('takes content from span events (message events, choice, inference details)', () => {
    const g = mapGenAi({}, [
      { name: 'gen_ai.system.message', attributes: { content: 'be brief', 'gen_ai.system': 'openai' } },
      { name: 'gen_ai.user.message', attributes: { content: 'hi' } },
      {
        name: 'gen_ai.choice',
        attributes: { index: 0, finish_reason: 'stop', message: '{"role":"assistant","content":"hello"}' },
      },
    ]);
    expect(g.input).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(g.output).toEqual({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } });
    expect([...g.consumedEvents]).toEqual([0, 1, 2]);
    const d = mapGenAi({}, [
      {
        name: 'gen_ai.client.inference.operation.details',
        attributes: {
          'gen_ai.input.messages': '[{"role":"user"}]',
          'gen_ai.output.messages': '[{"role":"assistant"}]',
        },
      },
    ]);
    expect(d).toMatchObject({ input: [{ role: 'user' }], output: [{ role: 'assistant' }] });
  });

  it('finds session and user ids', () => {
    expect(mapGenAi({ 'session.id': 's-1', 'user.id': 'u-1' }, [])).toMatchObject({ sessionId: 's-1', userId: 'u-1' });
    expect(mapGenAi({ 'gen_ai.conversation.id': 'conv-9', 'enduser.id': 'eu' }, [])).toMatchObject({
      sessionId: 'conv-9',
      userId: 'eu',
    });
  });

  it('sets trace session/user from the root, another span of the trace, or the resource', () => {
    const traceId = hex(16);
    const root = hex(8);
    const t0 = Date.now();
    const fromChild = mapExportRequest(
      decodeProtobuf(
        encodeRequest(
          exportRequest(
            [
              span({
                traceId,
                spanId: hex(8),
                parentSpanId: root,
                name: 'c',
                startMs: t0,
                endMs: t0 + 1,
                attrs: { 'gen_ai.conversation.id': 'conv-1' },
              }),
              span({ traceId, spanId: root, name: 'r', startMs: t0, endMs: t0 + 2 }),
            ],
            { 'service.name': 'svc', 'user.id': 'resource-user' },
          ),
        ),
      ),
      MB,
    );
    expect(byId(fromChild.ops, 'trace.create', traceId)!.fields).toMatchObject({
      session_id: 'conv-1',
      user_id: 'resource-user',
    });
  });
});
