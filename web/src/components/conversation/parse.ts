import {
  anthropicBlocks,
  anthropicMessage,
  arr,
  geminiContent,
  geminiParts,
  isObj,
  openaiMessage,
  parseBody,
  responseItems,
  str,
  text,
  type Message,
  type Obj,
} from './parts';
import { mergeGemini, reassemble } from './stream';

export { parseBody, type Message, type Part } from './parts';

/**
 * A recorded call's bodies as a conversation: the OpenAI chat format (and the providers that
 * speak it: Mistral, Groq, DeepSeek, xAI, Together, OpenRouter, Ollama; legacy completions), the
 * OpenAI Responses API, Anthropic messages and Gemini contents, each normalised to messages of
 * parts (parts.ts reads them). Streamed responses (SSE as the proxy stored them) are reassembled
 * first. A shape none of them reads gives null: the page shows raw JSON.
 */
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
