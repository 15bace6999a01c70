import type { SpanType } from '../types';
import { contentFrom, firstCount, firstString, mapValues, MAX_INT, maybeJson } from './genai-attrs';

/**
 * OpenTelemetry GenAI semantic conventions (gen_ai.*) and the two widespread instrumentation
 * dialects that predate them (OpenInference `llm.*`/`input.value`, Traceloop/OpenLLMetry
 * `traceloop.*` and indexed `gen_ai.prompt.N.*`), mapped to our span fields.
 */

export interface SpanEventLike {
  name: string;
  attributes: Record<string, unknown>;
}

export interface GenAiFields {
  spanType: SpanType;
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  input?: unknown;
  output?: unknown;
  sessionId?: string;
  userId?: string;
  /** Attribute keys whose content moved to input/output (left out of metadata to avoid storing it twice). */
  consumedKeys: Set<string>;
  /** Indexes of events whose content moved to input/output. */
  consumedEvents: Set<number>;
}

const OPERATION_TYPES: Record<string, SpanType> = {
  chat: 'llm',
  text_completion: 'llm',
  completion: 'llm',
  generate_content: 'llm',
  embeddings: 'embedding',
  embedding: 'embedding',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  invoke_workflow: 'chain',
  retrieval: 'retrieval',
  retrieve: 'retrieval',
  rerank: 'retrieval',
};
const OPENINFERENCE_KINDS: Record<string, SpanType> = {
  LLM: 'llm',
  EMBEDDING: 'embedding',
  RETRIEVER: 'retrieval',
  RERANKER: 'retrieval',
  TOOL: 'tool',
  AGENT: 'agent',
  CHAIN: 'chain',
};
const TRACELOOP_KINDS: Record<string, SpanType> = { workflow: 'chain', task: 'chain', agent: 'agent', tool: 'tool' };
const LLM_REQUEST_TYPES: Record<string, SpanType> = {
  chat: 'llm',
  completion: 'llm',
  embedding: 'embedding',
  rerank: 'retrieval',
};
const VECTOR_DBS = new Set([
  'pinecone',
  'chroma',
  'qdrant',
  'weaviate',
  'milvus',
  'lancedb',
  'marqo',
  'pgvector',
  'faiss',
  'elasticsearch',
  'opensearch',
]);

const MODEL_KEYS = [
  'gen_ai.response.model',
  'gen_ai.request.model',
  'llm.model_name',
  'llm.response.model',
  'llm.request.model',
];
const INPUT_TOKEN_KEYS = [
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'llm.usage.prompt_tokens',
  'llm.token_count.prompt',
];
const OUTPUT_TOKEN_KEYS = [
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'llm.usage.completion_tokens',
  'llm.token_count.completion',
];
const TOTAL_TOKEN_KEYS = ['gen_ai.usage.total_tokens', 'llm.usage.total_tokens', 'llm.token_count.total'];
export const SESSION_KEYS = ['session.id', 'gen_ai.conversation.id', 'langfuse.session.id'];
export const USER_KEYS = ['user.id', 'enduser.id', 'langfuse.user.id'];

/** Whole-value content attributes, in order of preference. */
const INPUT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.prompt',
  'input.value',
  'traceloop.entity.input',
  'gen_ai.tool.call.arguments',
];
const OUTPUT_KEYS = [
  'gen_ai.output.messages',
  'gen_ai.completion',
  'output.value',
  'traceloop.entity.output',
  'gen_ai.tool.call.result',
];
/** Indexed content attributes: `<prefix>.<n>.<field>` (Traceloop, OpenInference). */
const INPUT_PREFIXES = ['gen_ai.prompt', 'llm.input_messages'];
const OUTPUT_PREFIXES = ['gen_ai.completion', 'llm.output_messages'];

const MESSAGE_EVENTS: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

function spanTypeOf(attrs: Record<string, unknown>): SpanType {
  const op = attrs['gen_ai.operation.name'];
  if (typeof op === 'string' && OPERATION_TYPES[op]) return OPERATION_TYPES[op];
  const oi = attrs['openinference.span.kind'];
  if (typeof oi === 'string' && OPENINFERENCE_KINDS[oi.toUpperCase()]) return OPENINFERENCE_KINDS[oi.toUpperCase()]!;
  const tl = attrs['traceloop.span.kind'];
  if (typeof tl === 'string' && TRACELOOP_KINDS[tl]) return TRACELOOP_KINDS[tl];
  const rt = attrs['llm.request.type'];
  if (typeof rt === 'string' && LLM_REQUEST_TYPES[rt]) return LLM_REQUEST_TYPES[rt];
  if (typeof op === 'string' && op.length > 0) return 'other';
  if (
    attrs['gen_ai.request.model'] !== undefined ||
    attrs['gen_ai.system'] !== undefined ||
    attrs['gen_ai.provider.name'] !== undefined
  )
    return 'llm';
  const db = attrs['db.system'] ?? attrs['db.system.name'];
  if (typeof db === 'string' && VECTOR_DBS.has(db.toLowerCase())) return 'retrieval';
  return 'other';
}

const INDEXED_HEADS = [...INPUT_PREFIXES, ...OUTPUT_PREFIXES].map((p) => `${p}.`);
/** One pass over the keys: does any indexed content attribute exist at all? (Usually not.) */
function hasIndexedContent(attrs: Record<string, unknown>): boolean {
  for (const k in attrs) {
    if (k.length > 12 && (k.charCodeAt(0) === 103 /* g */ || k.charCodeAt(0) === 108) /* l */) {
      for (const h of INDEXED_HEADS) if (k.startsWith(h)) return true;
    }
  }
  return false;
}

export function mapGenAi(attrs: Record<string, unknown>, events: SpanEventLike[]): GenAiFields {
  const consumedKeys = new Set<string>();
  const consumedEvents = new Set<number>();
  const promptTokens = firstCount(attrs, INPUT_TOKEN_KEYS);
  const completionTokens = firstCount(attrs, OUTPUT_TOKEN_KEYS);
  let totalTokens = firstCount(attrs, TOTAL_TOKEN_KEYS);
  if (totalTokens === undefined && (promptTokens !== undefined || completionTokens !== undefined)) {
    totalTokens = Math.min((promptTokens ?? 0) + (completionTokens ?? 0), MAX_INT);
  }

  const hasIndexed = hasIndexedContent(attrs);
  let input = contentFrom(attrs, INPUT_KEYS, INPUT_PREFIXES, consumedKeys, hasIndexed);
  let output = contentFrom(attrs, OUTPUT_KEYS, OUTPUT_PREFIXES, consumedKeys, hasIndexed);

  // Content carried by span events (older and newer GenAI conventions).
  if (events.length > 0 && (input === undefined || output === undefined)) {
    const messages: unknown[] = [];
    const choices: unknown[] = [];
    events.forEach((e, i) => {
      const a = e.attributes;
      if (e.name === 'gen_ai.client.inference.operation.details') {
        if (input === undefined && a['gen_ai.input.messages'] !== undefined)
          input = maybeJson(a['gen_ai.input.messages']);
        if (output === undefined && a['gen_ai.output.messages'] !== undefined)
          output = maybeJson(a['gen_ai.output.messages']);
        consumedEvents.add(i);
      } else if (e.name === 'gen_ai.content.prompt' && input === undefined && a['gen_ai.prompt'] !== undefined) {
        input = maybeJson(a['gen_ai.prompt']);
        consumedEvents.add(i);
      } else if (
        e.name === 'gen_ai.content.completion' &&
        output === undefined &&
        a['gen_ai.completion'] !== undefined
      ) {
        output = maybeJson(a['gen_ai.completion']);
        consumedEvents.add(i);
      } else if (MESSAGE_EVENTS[e.name]) {
        const { 'gen_ai.system': _system, ...rest } = a;
        messages.push({ role: MESSAGE_EVENTS[e.name], ...mapValues(rest) });
        consumedEvents.add(i);
      } else if (e.name === 'gen_ai.choice') {
        const { 'gen_ai.system': _system, ...rest } = a;
        choices.push(mapValues(rest));
        consumedEvents.add(i);
      }
    });
    if (input === undefined && messages.length > 0) input = messages;
    if (output === undefined && choices.length > 0) output = choices.length === 1 ? choices[0] : choices;
  }

  return {
    spanType: spanTypeOf(attrs),
    model: firstString(attrs, MODEL_KEYS),
    promptTokens,
    completionTokens,
    totalTokens,
    input,
    output,
    sessionId: firstString(attrs, SESSION_KEYS),
    userId: firstString(attrs, USER_KEYS),
    consumedKeys,
    consumedEvents,
  };
}
