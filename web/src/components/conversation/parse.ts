import { mergeGemini, reassemble } from './stream';

/**
 * A recorded call's bodies as a conversation: the OpenAI chat format (and the providers that
 * speak it: Mistral, Groq, DeepSeek, xAI, Together, OpenRouter, Ollama; legacy completions), the
 * OpenAI Responses API, Anthropic messages and Gemini contents, each normalised to messages of parts. Streamed
 * responses (SSE as the proxy
 * stored them) are reassembled first. A shape none of them reads gives null: the page shows raw JSON.
 */
export type Part =
  | { type: 'text'; text: string }
  | { type: 'image'; label: string }
  | { type: 'tool_call'; id?: string; name: string; input: unknown }
  | { type: 'tool_result'; id?: string; name?: string; content: Part[]; error?: boolean }
  | { type: 'thinking'; text: string }
  | { type: 'other'; label: string; value: unknown };
export interface Message {
  role: string;
  parts: Part[];
}
export type Format = 'openai' | 'responses' | 'anthropic' | 'gemini';
export interface Conversation {
  format: Format;
  /** What was sent: system prompt first, then the turns. */
  input: Message[];
  /** What came back (empty when the response is not a completion, e.g. an error body). */
  output: Message[];
  /** Stream events the output was put together from (0: not streamed). */
  streamEvents: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A stored body (text) as JSON, or the value itself when it is not text. */
export function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const t = body.trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return body;
  }
}

/** The JSON value of a tool call's arguments (OpenAI sends them as a JSON string). */
const args = (v: unknown): unknown => (typeof v === 'string' ? (parseBody(v) ?? v) : v);
const text = (t: string): Part => ({ type: 'text', text: t });

// ---------- OpenAI chat ----------
function openaiContent(c: unknown): Part[] {
  if (typeof c === 'string') return c ? [text(c)] : [];
  return arr(c).map((p): Part => {
    if (!isObj(p)) return { type: 'other', label: 'part', value: p };
    if (p.type === 'text' || p.type === 'input_text' || p.type === 'output_text') return text(str(p.text) ?? '');
    if (p.type === 'image_url')
      return { type: 'image', label: imageLabel(isObj(p.image_url) ? str(p.image_url.url) : str(p.image_url)) };
    if (p.type === 'input_audio')
      return { type: 'other', label: 'audio', value: isObj(p.input_audio) ? { format: p.input_audio.format } : null };
    if (p.type === 'refusal') return text(`Refused: ${str(p.refusal) ?? ''}`);
    return { type: 'other', label: String(p.type ?? 'part'), value: p };
  });
}

function openaiMessage(m: unknown): Message {
  if (!isObj(m)) return { role: 'unknown', parts: [{ type: 'other', label: 'message', value: m }] };
  const role = str(m.role) ?? 'unknown';
  if (role === 'tool' || role === 'function')
    return {
      role: 'tool',
      parts: [{ type: 'tool_result', id: str(m.tool_call_id), name: str(m.name), content: openaiContent(m.content) }],
    };
  const parts = openaiContent(m.content);
  if (str(m.refusal)) parts.push(text(`Refused: ${m.refusal as string}`));
  for (const c of arr(m.tool_calls)) {
    if (!isObj(c)) continue;
    const fn = isObj(c.function) ? c.function : {};
    parts.push({ type: 'tool_call', id: str(c.id), name: str(fn.name) ?? 'tool', input: args(fn.arguments) });
  }
  if (isObj(m.function_call))
    parts.push({
      type: 'tool_call',
      name: str(m.function_call.name) ?? 'function',
      input: args(m.function_call.arguments),
    });
  // Ollama: images are base64 strings beside the content.
  for (const _ of arr(m.images)) parts.push({ type: 'image', label: 'Image (inline)' });
  return { role, parts };
}

// ---------- Anthropic messages ----------
function anthropicBlocks(c: unknown): Part[] {
  if (typeof c === 'string') return c ? [text(c)] : [];
  return arr(c).map((b): Part => {
    if (!isObj(b)) return { type: 'other', label: 'block', value: b };
    switch (b.type) {
      case 'text':
        return text(str(b.text) ?? '');
      case 'image':
      case 'document': {
        const src = isObj(b.source) ? b.source : {};
        return {
          type: 'image',
          label: `${b.type === 'image' ? 'Image' : 'Document'} (${str(src.media_type) ?? str(src.url) ?? str(src.type) ?? 'attached'})`,
        };
      }
      case 'tool_use':
      case 'server_tool_use':
        return { type: 'tool_call', id: str(b.id), name: str(b.name) ?? 'tool', input: b.input };
      case 'tool_result':
        return {
          type: 'tool_result',
          id: str(b.tool_use_id),
          content: anthropicBlocks(b.content),
          error: b.is_error === true,
        };
      case 'thinking':
        return { type: 'thinking', text: str(b.thinking) ?? '' };
      case 'redacted_thinking':
        return { type: 'thinking', text: '(redacted by the provider)' };
      default:
        return { type: 'other', label: String(b.type ?? 'block'), value: b };
    }
  });
}
const anthropicMessage = (m: unknown): Message =>
  isObj(m)
    ? { role: str(m.role) ?? 'unknown', parts: anthropicBlocks(m.content) }
    : { role: 'unknown', parts: [{ type: 'other', label: 'message', value: m }] };

// ---------- Gemini contents ----------
function geminiParts(ps: unknown): Part[] {
  return arr(ps).map((p): Part => {
    if (!isObj(p)) return { type: 'other', label: 'part', value: p };
    const inline = p.inlineData ?? p.inline_data;
    const file = p.fileData ?? p.file_data;
    const call = p.functionCall ?? p.function_call;
    const result = p.functionResponse ?? p.function_response;
    if (typeof p.text === 'string') return p.thought === true ? { type: 'thinking', text: p.text } : text(p.text);
    if (isObj(inline))
      return { type: 'image', label: `Inline data (${str(inline.mimeType ?? inline.mime_type) ?? 'binary'})` };
    if (isObj(file))
      return {
        type: 'image',
        label: `File (${str(file.mimeType ?? file.mime_type) ?? str(file.fileUri ?? file.file_uri) ?? 'attached'})`,
      };
    if (isObj(call))
      return { type: 'tool_call', id: str(call.id), name: str(call.name) ?? 'function', input: call.args ?? {} };
    if (isObj(result))
      return {
        type: 'tool_result',
        id: str(result.id),
        name: str(result.name),
        content: [{ type: 'other', label: 'response', value: result.response }],
      };
    return { type: 'other', label: Object.keys(p)[0] ?? 'part', value: p };
  });
}
const geminiContent = (c: unknown): Message =>
  isObj(c)
    ? { role: str(c.role) ?? 'model', parts: geminiParts(c.parts) }
    : { role: 'unknown', parts: [{ type: 'other', label: 'content', value: c }] };

// ---------- OpenAI Responses API ----------
function responseItems(items: unknown): Message[] {
  if (typeof items === 'string') return [{ role: 'user', parts: [text(items)] }];
  return arr(items)
    .map((it): Message => {
      if (!isObj(it)) return { role: 'unknown', parts: [{ type: 'other', label: 'item', value: it }] };
      if (it.type === 'function_call')
        return {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: str(it.call_id), name: str(it.name) ?? 'function', input: args(it.arguments) },
          ],
        };
      if (it.type === 'function_call_output')
        return {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              id: str(it.call_id),
              content: openaiContent(typeof it.output === 'string' ? it.output : JSON.stringify(it.output)),
            },
          ],
        };
      if (it.type === 'reasoning')
        return {
          role: 'assistant',
          parts: arr(it.summary).map((x) => ({ type: 'thinking', text: isObj(x) ? (str(x.text) ?? '') : '' })),
        };
      if (it.role !== undefined)
        return {
          role: str(it.role) ?? 'user',
          parts:
            arr(it.content).length || typeof it.content === 'string'
              ? openaiContent(it.content).map((p) =>
                  p.type === 'other' && isObj(p.value) && p.value.type === 'input_image'
                    ? { type: 'image', label: imageLabel(str(p.value.image_url)) }
                    : p,
                )
              : [],
        };
      return { role: 'unknown', parts: [{ type: 'other', label: String(it.type ?? 'item'), value: it }] };
    })
    .filter((m) => m.parts.length);
}

// ---------- detection ----------
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document']);
function looksAnthropic(req: Obj, provider?: string): boolean {
  if (provider === 'anthropic') return true;
  if (req.system !== undefined) return true;
  return arr(req.messages).some(
    (m) =>
      isObj(m) &&
      arr(m.content).some(
        (b) => isObj(b) && (ANTHROPIC_BLOCKS.has(String(b.type)) || (b.type === 'image' && isObj(b.source))),
      ),
  );
}

function input(req: unknown, res: unknown, provider?: string): { format: Format; messages: Message[] } | null {
  if (!isObj(req)) return null;
  // The Responses API: `input` (text or items) with instructions, or answered by a response object.
  // An embeddings call also has `input`, and is no conversation.
  if (
    req.input !== undefined &&
    req.messages === undefined &&
    (req.instructions !== undefined ||
      (Array.isArray(req.input) &&
        req.input.some((i) => isObj(i) && (i.role !== undefined || String(i.type).startsWith('function_call')))) ||
      (isObj(res) && res.object === 'response'))
  ) {
    return {
      format: 'responses',
      messages: [
        ...(typeof req.instructions === 'string' ? [{ role: 'system', parts: [text(req.instructions)] }] : []),
        ...responseItems(req.input),
      ],
    };
  }
  if (typeof req.prompt === 'string' && req.messages === undefined && isObj(res) && Array.isArray(res.choices))
    return { format: 'openai', messages: [{ role: 'prompt', parts: [text(req.prompt)] }] };
  if (Array.isArray(req.contents)) {
    const sys = req.systemInstruction ?? req.system_instruction;
    return {
      format: 'gemini',
      messages: [
        ...(isObj(sys) ? [{ role: 'system', parts: geminiParts(sys.parts) }] : []),
        ...req.contents.map(geminiContent),
      ],
    };
  }
  if (!Array.isArray(req.messages)) return null;
  if (looksAnthropic(req, provider)) {
    const sys = req.system === undefined ? [] : [{ role: 'system', parts: anthropicBlocks(req.system) }];
    return { format: 'anthropic', messages: [...sys, ...req.messages.map(anthropicMessage)] };
  }
  return { format: 'openai', messages: req.messages.map(openaiMessage) };
}

function output(res: unknown, format: Format): Message[] {
  if (!isObj(res)) return [];
  if (res.object === 'response' && Array.isArray(res.output)) return responseItems(res.output);
  if (Array.isArray(res.candidates))
    return res.candidates.filter(isObj).map((c) => geminiContent(c.content ?? { role: 'model', parts: [] }));
  if (res.type === 'message' && Array.isArray(res.content))
    return [{ role: str(res.role) ?? 'assistant', parts: anthropicBlocks(res.content) }];
  if (Array.isArray(res.choices))
    return res.choices
      .filter(isObj)
      .map((c) => openaiMessage(c.message ?? { role: 'assistant', content: c.text ?? '' }));
  if (isObj(res.message) && format === 'openai') return [openaiMessage(res.message)]; // Ollama /api/chat
  return [];
}

/** The conversation of a request and its response, or null when the request is no chat shape we know. */
export function toConversation(requestBody: unknown, responseBody: unknown, provider?: string): Conversation | null {
  const raw = parseBody(responseBody);
  // Gemini streamed without alt=sse: one JSON array of responses.
  const stream =
    typeof raw === 'string'
      ? reassemble(raw)
      : Array.isArray(raw) && raw.length && raw.every((r) => isObj(r) && Array.isArray(r.candidates))
        ? { response: mergeGemini(raw as Obj[]), events: raw.length }
        : null;
  const sent = input(parseBody(requestBody), stream ? stream.response : raw, provider);
  if (!sent) return null;
  return {
    format: sent.format,
    input: sent.messages,
    output: output(stream ? stream.response : raw, sent.format),
    streamEvents: stream?.events ?? 0,
  };
}

/** The answer's text (all text parts of the output), as a dataset item's expected output. */
export function outputText(c: Conversation | null): string | null {
  const t = (c?.output ?? [])
    .flatMap((m) => m.parts)
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('');
  return t || null;
}

function imageLabel(url: string | undefined): string {
  if (!url) return 'Image';
  const data = /^data:([^;,]+)/.exec(url);
  if (data) return `Image (${data[1]}, inline)`;
  try {
    return `Image (${new URL(url).hostname})`;
  } catch {
    return 'Image';
  }
}
