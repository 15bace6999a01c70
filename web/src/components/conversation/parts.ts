/**
 * The parts of each provider's messages, read into one shape: OpenAI chat (and legacy completions),
 * Anthropic blocks, Gemini parts and the OpenAI Responses API's items. parse.ts picks the reader.
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

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

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
export const text = (t: string): Part => ({ type: 'text', text: t });

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

export function openaiMessage(m: unknown): Message {
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
export function anthropicBlocks(c: unknown): Part[] {
  if (typeof c === 'string') return c ? [text(c)] : [];
  return arr(c).map((b): Part => {
    if (!isObj(b)) return { type: 'other', label: 'block', value: b };
    switch (b.type) {
      case 'text':
        return text(str(b.text) ?? '');
      case 'image':
      case 'document': {
        const src = isObj(b.source) ? b.source : {};
        const what = str(src.media_type) ?? str(src.url) ?? str(src.type) ?? 'attached';
        return { type: 'image', label: `${b.type === 'image' ? 'Image' : 'Document'} (${what})` };
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
export const anthropicMessage = (m: unknown): Message =>
  isObj(m)
    ? { role: str(m.role) ?? 'unknown', parts: anthropicBlocks(m.content) }
    : { role: 'unknown', parts: [{ type: 'other', label: 'message', value: m }] };

// ---------- Gemini contents ----------
export function geminiParts(ps: unknown): Part[] {
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
export const geminiContent = (c: unknown): Message =>
  isObj(c)
    ? { role: str(c.role) ?? 'model', parts: geminiParts(c.parts) }
    : { role: 'unknown', parts: [{ type: 'other', label: 'content', value: c }] };

// ---------- OpenAI Responses API ----------
export function responseItems(items: unknown): Message[] {
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
