/**
 * Rebuilding a streamed chat completion: the chunks' deltas put back together into the message(s)
 * a non-streaming call would have answered, for the span the OpenAI wrapper (openai.ts) ends.
 */

/** Token counts as OpenAI reports them, on a completion or on a stream's last chunk. */
export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

interface ToolCallAcc {
  index: number;
  id?: string;
  type?: string;
  function: { name: string; arguments: string };
}

interface ChoiceAcc {
  role: string;
  content: string | null;
  refusal: string | null;
  toolCalls: Map<number, ToolCallAcc>;
  finishReason?: unknown;
}

/** Rebuilds the assistant message(s) from chat.completion.chunk deltas. */
export class ChatStreamAccumulator {
  id: string | undefined;
  model: string | undefined;
  usage: Usage | undefined;
  private readonly choices = new Map<number, ChoiceAcc>();

  add(chunk: unknown): void {
    try {
      const c = chunk as {
        id?: unknown;
        model?: unknown;
        usage?: Usage | null;
        choices?: Array<{ index?: number; delta?: Record<string, unknown>; finish_reason?: unknown }>;
      };
      if (typeof c?.id === 'string') this.id = c.id;
      if (typeof c?.model === 'string') this.model = c.model;
      if (c?.usage) this.usage = c.usage;
      for (const choice of Array.isArray(c?.choices) ? c.choices : []) this.addChoice(choice);
    } catch {
      // A chunk of an unexpected shape only costs detail in the recorded output.
    }
  }

  private addChoice(choice: { index?: number; delta?: Record<string, unknown>; finish_reason?: unknown }): void {
    const index = typeof choice.index === 'number' ? choice.index : 0;
    let acc = this.choices.get(index);
    if (!acc) {
      acc = { role: 'assistant', content: null, refusal: null, toolCalls: new Map() };
      this.choices.set(index, acc);
    }
    const delta = choice.delta ?? {};
    if (typeof delta.role === 'string') acc.role = delta.role;
    if (typeof delta.content === 'string') acc.content = (acc.content ?? '') + delta.content;
    if (typeof delta.refusal === 'string') acc.refusal = (acc.refusal ?? '') + delta.refusal;
    if (Array.isArray(delta.tool_calls)) {
      for (const raw of delta.tool_calls as Array<Record<string, any>>) {
        const i = typeof raw.index === 'number' ? raw.index : acc.toolCalls.size;
        let call = acc.toolCalls.get(i);
        if (!call) {
          call = { index: i, function: { name: '', arguments: '' } };
          acc.toolCalls.set(i, call);
        }
        if (typeof raw.id === 'string') call.id = raw.id;
        if (typeof raw.type === 'string') call.type = raw.type;
        if (typeof raw.function?.name === 'string') call.function.name += raw.function.name;
        if (typeof raw.function?.arguments === 'string') call.function.arguments += raw.function.arguments;
      }
    }
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) acc.finishReason = choice.finish_reason;
  }

  finishReasons(): unknown[] {
    return [...this.choices.values()].map((c) => c.finishReason);
  }

  /** Same shape as a non-streaming response: one message, or an array for n > 1. */
  output(): unknown {
    const messages = [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({
        role: c.role,
        content: c.content,
        ...(c.refusal !== null ? { refusal: c.refusal } : {}),
        ...(c.toolCalls.size > 0
          ? {
              tool_calls: [...c.toolCalls.values()]
                .sort((a, b) => a.index - b.index)
                .map((t) => ({ id: t.id, type: t.type ?? 'function', function: t.function })),
            }
          : {}),
      }));
    if (messages.length === 0) return undefined;
    return messages.length === 1 ? messages[0] : messages;
  }
}
