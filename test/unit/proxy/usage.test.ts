import { ResponseCapture } from '../../../src/proxy/capture';
import { NdjsonParser, SseParser } from '../../../src/proxy/stream-parse';
import { UsageAccumulator, anthropicUsage, geminiUsage, ollamaUsage, openaiUsage } from '../../../src/providers/usage';
import zlib from 'node:zlib';

describe('usage parsers', () => {
  it('OpenAI chat, embeddings, Responses API and DeepSeek cache hits', () => {
    expect(
      openaiUsage({
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 4 },
      }),
    ).toEqual({
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      cacheReadTokens: 4,
      cacheWriteTokens: 0,
    });
    expect(openaiUsage({ prompt_tokens: 8, total_tokens: 8 })).toMatchObject({
      promptTokens: 8,
      completionTokens: 0,
      totalTokens: 8,
    });
    expect(
      openaiUsage({ input_tokens: 3, output_tokens: 9, total_tokens: 12, input_tokens_details: { cached_tokens: 1 } }),
    ).toMatchObject({
      promptTokens: 3,
      completionTokens: 9,
      cacheReadTokens: 1,
    });
    expect(openaiUsage({ prompt_tokens: 20, completion_tokens: 2, prompt_cache_hit_tokens: 16 })).toMatchObject({
      cacheReadTokens: 16,
      totalTokens: 22,
    });
    expect(openaiUsage(null)).toBeNull();
    expect(openaiUsage({})).toBeNull();
    expect(openaiUsage({ prompt_tokens: -1 })).toBeNull();
  });

  it('Anthropic adds cache parts to the prompt total', () => {
    expect(
      anthropicUsage({
        input_tokens: 10,
        output_tokens: 2,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 1000,
      }),
    ).toEqual({
      promptTokens: 1110,
      completionTokens: 2,
      totalTokens: 1112,
      cacheReadTokens: 1000,
      cacheWriteTokens: 100,
    });
  });

  it('Gemini counts thoughts as generated and includes tool prompts', () => {
    expect(
      geminiUsage({
        promptTokenCount: 10,
        candidatesTokenCount: 4,
        thoughtsTokenCount: 6,
        totalTokenCount: 20,
        cachedContentTokenCount: 3,
      }),
    ).toEqual({
      promptTokens: 10,
      completionTokens: 10,
      totalTokens: 20,
      cacheReadTokens: 3,
      cacheWriteTokens: 0,
    });
  });

  it('Ollama native counts', () => {
    expect(ollamaUsage({ prompt_eval_count: 26, eval_count: 290, done: true })).toMatchObject({
      promptTokens: 26,
      completionTokens: 290,
      totalTokens: 316,
    });
    expect(ollamaUsage({ done: false })).toBeNull();
  });
});

const sse = (events: unknown[]) =>
  events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');

/** Feeds `text` to a parser in every possible 2-way split and in 1-byte chunks. */
function feedAllWays(
  text: string,
  make: (on: (v: unknown) => void) => { push(b: Buffer): void; end(): void },
): unknown[][] {
  const bytes = Buffer.from(text, 'utf8');
  const runs: unknown[][] = [];
  const run = (chunks: Buffer[]) => {
    const got: unknown[] = [];
    const p = make((v) => got.push(v));
    for (const c of chunks) p.push(c);
    p.end();
    runs.push(got);
  };
  for (let i = 0; i <= bytes.length; i += Math.max(1, Math.floor(bytes.length / 40)))
    run([bytes.subarray(0, i), bytes.subarray(i)]);
  run([...bytes].map((b) => Buffer.from([b])));
  return runs;
}

describe('stream parsers', () => {
  it('SSE: same events however the bytes are split (CRLF, multi-byte UTF-8, comments, [DONE], multi-line data)', () => {
    const text =
      ': keep-alive comment\r\n\r\n' +
      'event: message_start\r\ndata: {"a":"héllo 👋"}\r\n\r\n' +
      'data: {"b":\ndata: 2}\n\n' +
      sse([{ c: 3 }, '[DONE]']);
    for (const got of feedAllWays(text, (on) => new SseParser(on))) {
      expect(got).toEqual([{ a: 'héllo 👋' }, { b: 2 }, { c: 3 }]);
    }
  });

  it('SSE: a final event without the blank line is still delivered at end', () => {
    const got: unknown[] = [];
    const p = new SseParser((v) => got.push(v));
    p.push(Buffer.from('data: {"x":1}'));
    p.end();
    expect(got).toEqual([{ x: 1 }]);
  });

  it('NDJSON: lines split anywhere; trailing line without newline', () => {
    const text = '{"n":1}\n{"n":2,"s":"ü"}\n\n{"n":3}';
    for (const got of feedAllWays(text, (on) => new NdjsonParser(on)))
      expect(got).toEqual([{ n: 1 }, { n: 2, s: 'ü' }, { n: 3 }]);
  });
});

describe('UsageAccumulator over streams', () => {
  const feed = (dialect: 'openai' | 'anthropic' | 'gemini' | 'ollama', events: unknown[]) => {
    const acc = new UsageAccumulator(dialect);
    for (const e of events) acc.feed(e);
    return acc;
  };

  it('OpenAI: usage only in the final chunk; text collected for estimation', () => {
    const acc = feed('openai', [
      { model: 'gpt-4o-2024-08-06', choices: [{ delta: { content: 'Hel' } }] },
      {
        model: 'gpt-4o-2024-08-06',
        choices: [{ delta: { content: 'lo', tool_calls: [{ function: { arguments: '{"a":1}' } }] } }],
      },
      { model: 'gpt-4o-2024-08-06', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
    ]);
    expect(acc.model).toBe('gpt-4o-2024-08-06');
    expect(acc.usage).toMatchObject({ promptTokens: 5, completionTokens: 2 });
    expect(acc.generatedText()).toBe('Hello{"a":1}');
  });

  it('OpenAI Responses API stream: response.completed carries usage', () => {
    const acc = feed('openai', [
      { type: 'response.output_text.delta', delta: 'Hi' },
      {
        type: 'response.completed',
        response: { model: 'gpt-4.1', usage: { input_tokens: 4, output_tokens: 1, total_tokens: 5 } },
      },
    ]);
    expect(acc.usage).toMatchObject({ promptTokens: 4, completionTokens: 1 });
    expect(acc.model).toBe('gpt-4.1');
    expect(acc.generatedText()).toBe('Hi');
  });

  it('Anthropic: input from message_start, cumulative output from message_delta', () => {
    const acc = feed('anthropic', [
      {
        type: 'message_start',
        message: {
          model: 'claude-3-5-haiku-latest',
          usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 5 },
        },
      },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'message_delta', usage: { output_tokens: 15 } },
    ]);
    expect(acc.usage).toEqual({
      promptTokens: 30,
      completionTokens: 15,
      totalTokens: 45,
      cacheReadTokens: 5,
      cacheWriteTokens: 0,
    });
    expect(acc.model).toBe('claude-3-5-haiku-latest');
  });

  it('Gemini: the last usageMetadata wins; a JSON array stream works too', () => {
    const chunks = [
      {
        candidates: [{ content: { parts: [{ text: 'a' }] } }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 },
        modelVersion: 'gemini-2.0-flash',
      },
      {
        candidates: [{ content: { parts: [{ text: 'b' }] } }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
      },
    ];
    expect(feed('gemini', chunks).usage).toMatchObject({ promptTokens: 3, completionTokens: 2, totalTokens: 5 });
    const arr = feed('gemini', [chunks]);
    expect(arr.usage).toMatchObject({ completionTokens: 2 });
    expect(arr.generatedText()).toBe('ab');
  });

  it('Ollama: final done line', () => {
    const acc = feed('ollama', [
      { model: 'llama3', message: { content: 'x' }, done: false },
      { model: 'llama3', done: true, prompt_eval_count: 4, eval_count: 9 },
    ]);
    expect(acc.usage).toMatchObject({ promptTokens: 4, completionTokens: 9 });
  });
});

describe('ResponseCapture', () => {
  it('decodes a gzip SSE stream incrementally for usage while the caller gets the raw bytes', async () => {
    const body = sse([
      { choices: [{ delta: { content: 'hey' } }] },
      { choices: [], usage: { prompt_tokens: 2, completion_tokens: 1 } },
      '[DONE]',
    ]);
    const gz = zlib.gzipSync(Buffer.from(body));
    const cap = new ResponseCapture({
      dialect: 'openai',
      contentType: 'text/event-stream',
      contentEncoding: 'gzip',
      keepBytes: 10_000,
      parseMaxBytes: 1e6,
    });
    for (let i = 0; i < gz.length; i += 7) cap.push(gz.subarray(i, i + 7));
    const r = await cap.end();
    expect(r.acc.usage).toMatchObject({ promptTokens: 2, completionTokens: 1 });
    expect(r.text).toBe(body);
  });

  it('parses a whole brotli JSON body and keeps a truncated copy with a marker', async () => {
    const json = JSON.stringify({
      model: 'm',
      usage: { prompt_tokens: 1, completion_tokens: 2 },
      pad: 'x'.repeat(500),
    });
    const cap = new ResponseCapture({
      dialect: 'openai',
      contentType: 'application/json',
      contentEncoding: 'br',
      keepBytes: 100,
      parseMaxBytes: 1e6,
    });
    cap.push(zlib.brotliCompressSync(Buffer.from(json)));
    const r = await cap.end();
    expect(r.acc.usage).toMatchObject({ completionTokens: 2 });
    expect(r.text.startsWith(json.slice(0, 100))).toBe(true);
    expect(r.text).toContain('[truncated:');
    expect(r.decoded!.toString()).toBe(json);
  });

  it('describes binary bodies instead of storing them', async () => {
    const cap = new ResponseCapture({
      dialect: 'openai',
      contentType: 'audio/mpeg',
      contentEncoding: undefined,
      keepBytes: 100,
      parseMaxBytes: 1e6,
    });
    cap.push(Buffer.alloc(300, 1));
    const r = await cap.end();
    expect(r.text).toBe('[binary response body: 300 bytes, audio/mpeg]');
  });

  it('stops buffering above the parse limit', async () => {
    const cap = new ResponseCapture({
      dialect: 'openai',
      contentType: 'application/json',
      contentEncoding: undefined,
      keepBytes: 10,
      parseMaxBytes: 50,
    });
    cap.push(Buffer.alloc(40, 0x20));
    cap.push(Buffer.alloc(40, 0x20));
    const r = await cap.end();
    expect(r.tooLarge).toBe(true);
    expect(r.json).toBeUndefined();
  });
});
