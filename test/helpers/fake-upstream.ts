import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake model provider on 127.0.0.1 that records every request it receives and answers in
 * the providers' own shapes (OpenAI-compatible, Anthropic, Gemini, Ollama), streamed or not.
 * Tests swap the handler to script errors, hangs, big or odd bodies.
 */
/** A recorded request's JSON body: the chat fields tests read are typed, anything else is unknown. */
interface RecordedJson {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: { role: string; content: unknown }[];
  [k: string]: unknown;
}

interface Recorded {
  method: string;
  url: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json: RecordedJson | undefined;
}

export type Handler = (req: Recorded, res: http.ServerResponse) => void | Promise<void>;

export const USAGE = { prompt: 11, completion: 7 };

export interface FakeUpstream {
  url: string;
  requests: Recorded[];
  /** Replaces the handler (default: {@link defaultHandler}). */
  handle(h: Handler): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  let handler: Handler = defaultHandler;
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      let json: RecordedJson | undefined;
      try {
        json = body.length ? JSON.parse(body.toString('utf8')) : undefined;
      } catch {
        json = undefined;
      }
      const rec: Recorded = {
        method: req.method!,
        url: req.url!,
        path: req.url!.split('?')[0]!,
        headers: req.headers,
        body,
        json,
      };
      requests.push(rec);
      try {
        await handler(rec, res);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      }
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle: (h) => (handler = h),
    reset: () => {
      requests.length = 0;
      handler = defaultHandler;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const s = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s), ...headers });
  res.end(s);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes SSE events one by one (`data: <json>\n\n`), optionally pausing between them. */
export async function sendSse(
  res: http.ServerResponse,
  events: (unknown | { event: string; data: unknown })[],
  opts: { delayMs?: number; done?: boolean } = {},
) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (const e of events) {
    const named =
      e && typeof e === 'object' && 'event' in e && 'data' in e ? (e as { event: string; data: unknown }) : null;
    res.write(
      named ? `event: ${named.event}\ndata: ${JSON.stringify(named.data)}\n\n` : `data: ${JSON.stringify(e)}\n\n`,
    );
    if (opts.delayMs) await sleep(opts.delayMs);
  }
  if (opts.done) res.write('data: [DONE]\n\n');
  res.end();
}

export const TEXT_PARTS = ['Hello', ' from', ' the', ' fake', ' upstream', '.'];

export function openaiCompletion(model: string | undefined, content = TEXT_PARTS.join('')) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.completion,
      total_tokens: USAGE.prompt + USAGE.completion,
    },
  };
}

export function openaiStreamEvents(model: string | undefined, withUsage: boolean) {
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const events: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ];
  for (const t of TEXT_PARTS)
    events.push({ ...base, choices: [{ index: 0, delta: { content: t }, finish_reason: null }] });
  events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  if (withUsage) {
    events.push({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: USAGE.prompt,
        completion_tokens: USAGE.completion,
        total_tokens: USAGE.prompt + USAGE.completion,
      },
    });
  }
  return events;
}

function anthropicMessage(model: string | undefined) {
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: TEXT_PARTS.join('') }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: USAGE.prompt,
      output_tokens: USAGE.completion,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function anthropicStreamEvents(model: string | undefined) {
  const ev = (type: string, data: Record<string, unknown>) => ({ event: type, data: { type, ...data } });
  return [
    ev('message_start', {
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: USAGE.prompt, output_tokens: 1 },
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...TEXT_PARTS.map((t) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: t } })),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: USAGE.completion },
    }),
    ev('message_stop', {}),
  ];
}

function geminiResponse(model: string, text = TEXT_PARTS.join(''), usage = true) {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    ...(usage
      ? {
          usageMetadata: {
            promptTokenCount: USAGE.prompt,
            candidatesTokenCount: USAGE.completion,
            totalTokenCount: USAGE.prompt + USAGE.completion,
          },
        }
      : {}),
    modelVersion: model,
  };
}

/**
 * Answers like the real providers by path: chat completions (OpenAI-compatible, streamed when
 * `stream` is true, with a usage chunk only when `stream_options.include_usage`), Anthropic
 * messages, Gemini generate/stream, Ollama chat.
 */
export const defaultHandler: Handler = async (req, res) => {
  const body = req.json ?? {};
  if (/\/chat\/completions$/.test(req.path) && !req.path.startsWith('/api/')) {
    if (body.stream)
      return sendSse(res, openaiStreamEvents(body.model, !!body.stream_options?.include_usage), { done: true });
    return sendJson(res, 200, openaiCompletion(body.model));
  }
  if (req.path.endsWith('/v1/messages')) {
    if (body.stream) return sendSse(res, anthropicStreamEvents(body.model));
    return sendJson(res, 200, anthropicMessage(body.model));
  }
  const gem = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(req.path);
  if (gem) {
    const model = gem[1]!;
    if (gem[2] === 'streamGenerateContent') {
      const parts = TEXT_PARTS.map((t, i) => ({
        candidates: [{ content: { role: 'model', parts: [{ text: t }] }, index: 0 }],
        usageMetadata: {
          promptTokenCount: USAGE.prompt,
          candidatesTokenCount: i + 1,
          totalTokenCount: USAGE.prompt + i + 1,
        },
        modelVersion: model,
      }));
      parts[parts.length - 1]!.usageMetadata = {
        promptTokenCount: USAGE.prompt,
        candidatesTokenCount: USAGE.completion,
        totalTokenCount: USAGE.prompt + USAGE.completion,
      };
      return sendSse(res, parts);
    }
    return sendJson(res, 200, geminiResponse(model));
  }
  if (req.path === '/api/chat') {
    const final = {
      model: body.model,
      created_at: '2024-01-01T00:00:00Z',
      message: { role: 'assistant', content: '' },
      done: true,
      prompt_eval_count: USAGE.prompt,
      eval_count: USAGE.completion,
    };
    if (body.stream === false)
      return sendJson(res, 200, { ...final, message: { role: 'assistant', content: TEXT_PARTS.join('') } });
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    for (const t of TEXT_PARTS)
      res.write(JSON.stringify({ model: body.model, message: { role: 'assistant', content: t }, done: false }) + '\n');
    res.end(JSON.stringify(final) + '\n');
    return;
  }
  sendJson(res, 404, { error: { message: `fake upstream has no route ${req.method} ${req.path}` } });
};
