import type { UsageDialect } from './providers';

/**
 * Token usage as reported by a provider, normalised. `promptTokens` is the whole prompt
 * (cached parts included), `completionTokens` everything generated (reasoning included).
 */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function finish(prompt: number, completion: number, total: number | undefined, cacheRead = 0, cacheWrite = 0): Usage {
  return {
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: total !== undefined && total >= prompt + completion ? total : prompt + completion,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

/** OpenAI-compatible `usage` (chat completions, embeddings, Responses API, DeepSeek and friends). */
export function openaiUsage(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const prompt = num(u.prompt_tokens) ?? num(u.input_tokens);
  const completion = num(u.completion_tokens) ?? num(u.output_tokens);
  if (prompt === undefined && completion === undefined) return null;
  const details = isObj(u.prompt_tokens_details)
    ? u.prompt_tokens_details
    : isObj(u.input_tokens_details)
      ? u.input_tokens_details
      : {};
  const cached = num(details.cached_tokens) ?? num(u.prompt_cache_hit_tokens) ?? 0;
  return finish(prompt ?? 0, completion ?? 0, num(u.total_tokens), cached);
}

/** Anthropic `usage`: input_tokens excludes the cache parts, which are added back for the prompt total. */
export function anthropicUsage(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  if (input === undefined && output === undefined) return null;
  const cacheWrite = num(u.cache_creation_input_tokens) ?? 0;
  const cacheRead = num(u.cache_read_input_tokens) ?? 0;
  return finish((input ?? 0) + cacheWrite + cacheRead, output ?? 0, undefined, cacheRead, cacheWrite);
}

/** Gemini `usageMetadata`: candidates plus thoughts are the generated tokens. */
export function geminiUsage(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const prompt = num(u.promptTokenCount);
  const candidates = num(u.candidatesTokenCount);
  const thoughts = num(u.thoughtsTokenCount) ?? 0;
  if (prompt === undefined && candidates === undefined) return null;
  const toolPrompt = num(u.toolUsePromptTokenCount) ?? 0;
  return finish(
    (prompt ?? 0) + toolPrompt,
    (candidates ?? 0) + thoughts,
    num(u.totalTokenCount),
    num(u.cachedContentTokenCount) ?? 0,
  );
}

/** Ollama native API: counts on the final object. */
export function ollamaUsage(o: unknown): Usage | null {
  if (!isObj(o)) return null;
  const prompt = num(o.prompt_eval_count);
  const completion = num(o.eval_count);
  if (prompt === undefined && completion === undefined) return null;
  return finish(prompt ?? 0, completion ?? 0, undefined);
}

/** Text a response generated, used to estimate tokens when the provider reports none. */
function generatedText(dialect: UsageDialect, o: Json, out: string[]): void {
  switch (dialect) {
    case 'openai': {
      const choices = Array.isArray(o.choices) ? o.choices : [];
      for (const c of choices) {
        if (!isObj(c)) continue;
        for (const part of [c.delta, c.message]) {
          if (!isObj(part)) continue;
          for (const k of ['content', 'reasoning_content', 'reasoning', 'refusal']) {
            const s = str(part[k]);
            if (s) out.push(s);
          }
          if (Array.isArray(part.tool_calls)) {
            for (const t of part.tool_calls)
              if (isObj(t) && isObj(t.function)) out.push(str(t.function.arguments) ?? '');
          }
        }
        const text = str(c.text); // legacy completions
        if (text) out.push(text);
      }
      // Responses API stream events.
      if (typeof o.type === 'string' && o.type.endsWith('.delta')) {
        const d = str(o.delta);
        if (d) out.push(d);
      }
      return;
    }
    case 'anthropic': {
      if (isObj(o.delta)) {
        for (const k of ['text', 'partial_json', 'thinking']) {
          const s = str(o.delta[k]);
          if (s) out.push(s);
        }
      }
      if (Array.isArray(o.content)) {
        for (const b of o.content) {
          if (!isObj(b)) continue;
          const s = str(b.text) ?? str(b.thinking) ?? (b.input !== undefined ? JSON.stringify(b.input) : undefined);
          if (s) out.push(s);
        }
      }
      return;
    }
    case 'gemini': {
      const candidates = Array.isArray(o.candidates) ? o.candidates : [];
      for (const c of candidates) {
        if (!isObj(c) || !isObj(c.content) || !Array.isArray(c.content.parts)) continue;
        for (const p of c.content.parts) {
          if (!isObj(p)) continue;
          const s = str(p.text) ?? (p.functionCall !== undefined ? JSON.stringify(p.functionCall) : undefined);
          if (s) out.push(s);
        }
      }
      return;
    }
    case 'ollama': {
      const s = (isObj(o.message) ? str(o.message.content) : undefined) ?? str(o.response);
      if (s) out.push(s);
      return;
    }
  }
}

/**
 * Reads usage, model and generated text from a provider's answer, one JSON object at a time:
 * the single body of a plain response, or each event/line of a stream. Later reports win for
 * cumulative counters (Gemini, Anthropic message_delta), so feeding a whole stream yields the
 * final usage.
 */
export class UsageAccumulator {
  usage: Usage | null = null;
  model: string | null = null;
  /** Pieces of generated text, kept only until estimation needs them. */
  readonly text: string[] = [];
  private anthropicInput: Usage | null = null;

  constructor(readonly dialect: UsageDialect) {}

  /** One JSON value: a whole response body, an SSE `data:` payload or an NDJSON line. */
  feed(value: unknown): void {
    if (Array.isArray(value)) {
      // Gemini without alt=sse streams a JSON array of responses.
      for (const v of value) this.feed(v);
      return;
    }
    if (!isObj(value)) return;
    generatedText(this.dialect, value, this.text);
    switch (this.dialect) {
      case 'openai': {
        this.model = str(value.model) ?? this.model;
        const u = openaiUsage(value.usage);
        if (u) this.usage = u;
        // Responses API: response.completed carries the final response object.
        if (isObj(value.response)) {
          this.model = str(value.response.model) ?? this.model;
          const ru = openaiUsage(value.response.usage);
          if (ru) this.usage = ru;
        }
        return;
      }
      case 'anthropic': {
        if (value.type === 'message_start' && isObj(value.message)) {
          this.model = str(value.message.model) ?? this.model;
          this.anthropicInput = anthropicUsage(value.message.usage);
          if (this.anthropicInput) this.usage = this.anthropicInput;
          return;
        }
        if (value.type === 'message_delta' && isObj(value.usage)) {
          // output_tokens is cumulative; newer API versions repeat the input counts here too.
          const d = value.usage;
          const base = this.anthropicInput;
          const merged = anthropicUsage({
            input_tokens:
              num(d.input_tokens) ?? (base ? base.promptTokens - base.cacheReadTokens - base.cacheWriteTokens : 0),
            output_tokens: num(d.output_tokens) ?? 0,
            cache_creation_input_tokens: num(d.cache_creation_input_tokens) ?? base?.cacheWriteTokens ?? 0,
            cache_read_input_tokens: num(d.cache_read_input_tokens) ?? base?.cacheReadTokens ?? 0,
          });
          if (merged) this.usage = merged;
          return;
        }
        this.model = str(value.model) ?? this.model;
        const u = anthropicUsage(value.usage);
        if (u) this.usage = u;
        return;
      }
      case 'gemini': {
        this.model = str(value.modelVersion) ?? this.model;
        const u = geminiUsage(value.usageMetadata);
        if (u) this.usage = u;
        return;
      }
      case 'ollama': {
        this.model = str(value.model) ?? this.model;
        const u = ollamaUsage(value);
        if (u) this.usage = u;
        return;
      }
    }
  }

  generatedText(): string {
    return this.text.join('');
  }
}
