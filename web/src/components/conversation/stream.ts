/**
 * A streamed response as the proxy stored it (SSE `data:` lines, or NDJSON from Ollama) put back
 * together into the provider's non-streamed shape, so one reader renders both.
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function events(raw: string): Obj[] {
  const lines = raw.split(/\r?\n/);
  const sse = lines.some((l) => l.startsWith('data:'));
  const out: Obj[] = [];
  for (const line of lines) {
    const payload = sse ? (line.startsWith('data:') ? line.slice(5).trim() : '') : line.trim();
    if (!payload || payload === '[DONE]') continue;
    try {
      const v = JSON.parse(payload) as unknown;
      if (isObj(v)) out.push(v);
    } catch {
      /* a cut-off last line (the body is stored up to a size) */
    }
  }
  return out;
}

interface ToolCall {
  id?: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function openai(evs: Obj[]): Obj {
  const choices = new Map<number, { role: string; content: string; tool_calls: ToolCall[] }>();
  for (const e of evs) {
    for (const c of arr(e.choices)) {
      if (!isObj(c) || !isObj(c.delta)) continue;
      const i = typeof c.index === 'number' ? c.index : 0;
      const acc = choices.get(i) ?? { role: 'assistant', content: '', tool_calls: [] };
      choices.set(i, acc);
      if (str(c.delta.role)) acc.role = str(c.delta.role);
      acc.content += str(c.delta.content);
      for (const t of arr(c.delta.tool_calls)) {
        if (!isObj(t)) continue;
        const at = typeof t.index === 'number' ? t.index : acc.tool_calls.length;
        const call = (acc.tool_calls[at] ??= { type: 'function', function: { name: '', arguments: '' } });
        if (str(t.id)) call.id = str(t.id);
        const fn = isObj(t.function) ? t.function : {};
        call.function.name += str(fn.name);
        call.function.arguments += str(fn.arguments);
      }
    }
  }
  return {
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, m]) => ({
        message: {
          role: m.role,
          content: m.content,
          ...(m.tool_calls.length ? { tool_calls: m.tool_calls.filter(Boolean) } : {}),
        },
      })),
  };
}

function anthropic(evs: Obj[]): Obj {
  let role = 'assistant';
  const blocks: Obj[] = [];
  const json = new Map<number, string>();
  for (const e of evs) {
    if (e.type === 'message_start' && isObj(e.message)) role = str(e.message.role) || role;
    const i = typeof e.index === 'number' ? e.index : 0;
    if (e.type === 'content_block_start' && isObj(e.content_block)) blocks[i] = { ...e.content_block };
    if (e.type === 'content_block_delta' && isObj(e.delta)) {
      const b = (blocks[i] ??= { type: 'text', text: '' });
      const d = e.delta;
      if (d.type === 'text_delta') b.text = str(b.text) + str(d.text);
      if (d.type === 'thinking_delta') b.thinking = str(b.thinking) + str(d.thinking);
      if (d.type === 'input_json_delta') json.set(i, (json.get(i) ?? '') + str(d.partial_json));
    }
  }
  for (const [i, s] of json) {
    try {
      if (blocks[i]) blocks[i].input = s ? (JSON.parse(s) as unknown) : {};
    } catch {
      if (blocks[i]) blocks[i].input = s;
    }
  }
  return { type: 'message', role, content: blocks.filter(Boolean) };
}

/** Gemini responses in pieces (SSE or a JSON array) as one: consecutive text of one kind joined. */
export function mergeGemini(evs: Obj[]): Obj {
  const parts: Obj[] = [];
  let role = 'model';
  for (const e of evs) {
    const c = arr(e.candidates)[0];
    if (!isObj(c) || !isObj(c.content)) continue;
    role = str(c.content.role) || role;
    for (const p of arr(c.content.parts)) {
      if (!isObj(p)) continue;
      const last = parts[parts.length - 1];
      // Text arrives in pieces: consecutive pieces of the same kind (answer or thought) are one part.
      if (typeof p.text === 'string' && last && typeof last.text === 'string' && last.thought === p.thought)
        last.text += p.text;
      else parts.push({ ...p });
    }
  }
  return { candidates: [{ content: { role, parts } }] };
}

function ollama(evs: Obj[]): Obj {
  let role = 'assistant';
  let content = '';
  for (const e of evs) {
    if (!isObj(e.message)) continue;
    role = str(e.message.role) || role;
    content += str(e.message.content);
  }
  return { message: { role, content } };
}

/** The response a stream stands for, with how many events it had; null when the text is no stream. */
export function reassemble(raw: string): { response: Obj; events: number } | null {
  const evs = events(raw);
  if (!evs.length) return null;
  // The Responses API's last event carries the whole response.
  const done = evs.find((e) => e.type === 'response.completed' && isObj(e.response));
  if (done) return { response: done.response as Obj, events: evs.length };
  const first = evs.find(
    (e) =>
      e.choices ||
      e.candidates ||
      e.message ||
      (typeof e.type === 'string' && e.type.startsWith('message')) ||
      e.type === 'content_block_delta',
  );
  if (!first) return null;
  if (first.candidates) return { response: mergeGemini(evs), events: evs.length };
  if (first.choices) return { response: openai(evs), events: evs.length };
  if (typeof first.type === 'string') return { response: anthropic(evs), events: evs.length };
  return { response: ollama(evs), events: evs.length };
}
