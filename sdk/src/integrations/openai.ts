import type { GatewayClient } from '../client';
import { errorOutput, type Span } from '../handles';
import type { Metadata } from '../types';
import { ChatStreamAccumulator, type Usage } from './openai-stream';

/**
 * The slice of the `openai` client this wrapper touches. Typed structurally so the SDK has
 * no runtime (or type) dependency on the `openai` package; any version whose client has
 * `chat.completions.create` fits.
 */
export interface OpenAILike {
  chat: { completions: { create: (...args: any[]) => any } };
}

export interface WrapOpenAIOptions {
  /** Span name. Default `chat <model>` (the OpenTelemetry GenAI convention). */
  spanName?: string;
  /** Extra metadata on every span. */
  metadata?: Metadata;
}

/**
 * Returns a view of `client` in which every `chat.completions.create` call is recorded as
 * an `llm` span (model, input messages, output message, token usage), nested under the
 * active span/trace of `tracer`, or in a trace of its own when none is active. Streaming
 * calls are recorded when the stream is consumed. Everything else passes through, and the
 * original client is left untouched. The call's own result (including openai's
 * `.withResponse()` promise helpers) is returned unchanged.
 */
export function wrapOpenAI<T extends OpenAILike>(client: T, tracer: GatewayClient, options: WrapOpenAIOptions = {}): T {
  return overrideProperties(client, {
    chat: (chat) =>
      overrideProperties(chat as object, {
        completions: (completions) =>
          overrideProperties(completions as object, {
            create: (create) =>
              recordedCreate(completions as object, create as (...a: unknown[]) => unknown, tracer, options),
          }),
      }),
  }) as T;
}

/**
 * A Proxy that swaps a few properties and passes the rest through. Methods are bound to
 * the real object: openai keeps private class state that a proxy receiver can't reach.
 */
function overrideProperties<T extends object>(target: T, overrides: Record<string, (value: unknown) => unknown>): T {
  const made = new Map<string, { from: unknown; to: unknown }>();
  const bound = new WeakMap<Function, Function>();
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t);
      if (typeof prop === 'string' && Object.hasOwn(overrides, prop) && value !== undefined && value !== null) {
        const cached = made.get(prop);
        if (cached && cached.from === value) return cached.to;
        const to = overrides[prop]!(value);
        made.set(prop, { from: value, to });
        return to;
      }
      if (typeof value !== 'function') return value;
      let fn = bound.get(value);
      if (!fn) {
        fn = value.bind(t) as Function;
        bound.set(value, fn);
      }
      return fn;
    },
  });
}

type ChatParams = { model?: unknown; messages?: unknown; stream?: unknown } & Record<string, unknown>;

function recordedCreate(
  completions: object,
  create: (...args: unknown[]) => unknown,
  tracer: GatewayClient,
  options: WrapOpenAIOptions,
) {
  return function (this: unknown, params: ChatParams, ...rest: unknown[]): unknown {
    let span: Span | undefined;
    try {
      const model = typeof params?.model === 'string' ? params.model : undefined;
      span = tracer.startSpan({
        name: options.spanName ?? (model ? `chat ${model}` : 'chat'),
        type: 'llm',
        model,
        input: params?.messages,
        metadata: {
          ...options.metadata,
          provider: 'openai',
          stream: params?.stream === true,
          params: scalarParams(params),
        },
      });
    } catch {
      // Recording must never stop the call.
    }
    let result: unknown;
    try {
      result = create.call(completions, params, ...rest);
    } catch (err) {
      span?.end({ status: 'error', output: errorOutput(err) });
      throw err;
    }
    if (span) observeResult(result, span, params?.stream === true);
    return result;
  };
}

/** Request settings worth keeping (temperature, max_tokens, ...): the scalar ones. */
function scalarParams(params: ChatParams | undefined): Metadata | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const out: Metadata = {};
  for (const [key, value] of Object.entries(params)) {
    if (key === 'messages' || key === 'model' || key === 'stream') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function observeResult(result: unknown, span: Span, streaming: boolean): void {
  const settle = (value: unknown) => {
    try {
      if (streaming) observeStream(value, span);
      else endWithCompletion(span, value);
    } catch (err) {
      span.end({ status: 'error', output: errorOutput(err) });
    }
  };
  const fail = (err: unknown) => span.end({ status: 'error', output: errorOutput(err), metadata: errorMetadata(err) });
  if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
    // Registered before the caller's own await, so a stream is wrapped before they see it.
    // (openai's APIPromise parses once and shares the result, so this adds no request.)
    (result as PromiseLike<unknown>).then(settle, fail);
  } else {
    settle(result);
  }
}

interface ChatCompletionLike {
  id?: string;
  model?: string;
  choices?: Array<{ index?: number; message?: unknown; finish_reason?: unknown }>;
  usage?: Usage | null;
  system_fingerprint?: unknown;
}

function endWithCompletion(span: Span, value: unknown): void {
  const completion = (value ?? {}) as ChatCompletionLike;
  const choices = Array.isArray(completion.choices) ? completion.choices : [];
  const messages = choices.map((c) => c?.message);
  span.end({
    status: 'ok',
    output: messages.length === 1 ? messages[0] : messages,
    ...usageFields(completion.usage),
    ...(typeof completion.model === 'string' ? { model: completion.model } : {}),
    metadata: responseMetadata(
      completion.id,
      choices.map((c) => c?.finish_reason),
    ),
  });
}

function usageFields(usage: Usage | null | undefined) {
  if (!usage) return {};
  return {
    promptTokens: numberOrUndefined(usage.prompt_tokens),
    completionTokens: numberOrUndefined(usage.completion_tokens),
    totalTokens: numberOrUndefined(usage.total_tokens),
  };
}

function responseMetadata(id: unknown, finishReasons: unknown[]): Metadata {
  const reasons = finishReasons.filter((r) => r !== undefined && r !== null);
  return {
    ...(typeof id === 'string' ? { response_id: id } : {}),
    ...(reasons.length > 0 ? { finish_reason: reasons.length === 1 ? reasons[0] : reasons } : {}),
  };
}

function errorMetadata(err: unknown): Metadata | undefined {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' ? { error_status: status } : undefined;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Wraps the stream's async iterator (what `for await` and `toReadableStream()` use) so the
 * span ends when the stream does: `ok` with the assembled message when it is drained or
 * the consumer stops early (marked `stream_aborted`), `error` when it fails.
 */
function observeStream(stream: unknown, span: Span): void {
  const iterable = stream as { [Symbol.asyncIterator]?: () => AsyncIterator<unknown> } | null;
  const original = iterable?.[Symbol.asyncIterator];
  if (!iterable || typeof original !== 'function') {
    endWithCompletion(span, stream);
    return;
  }
  const acc = new ChatStreamAccumulator();
  let finished = false;
  const finish = (aborted: boolean, err?: unknown) => {
    if (finished) return;
    finished = true;
    const output = acc.output();
    span.end({
      status: err === undefined ? 'ok' : 'error',
      output: err === undefined ? output : { ...errorOutput(err), partial: output },
      ...usageFields(acc.usage),
      ...(acc.model ? { model: acc.model } : {}),
      metadata: { ...responseMetadata(acc.id, acc.finishReasons()), ...(aborted ? { stream_aborted: true } : {}) },
    });
  };

  Object.defineProperty(iterable, Symbol.asyncIterator, {
    configurable: true,
    writable: true,
    value: function (this: unknown) {
      const inner = original.call(iterable);
      const wrapped: AsyncIterator<unknown> & AsyncIterable<unknown> = {
        async next(...args: [] | [unknown]) {
          let r: IteratorResult<unknown>;
          try {
            r = await inner.next(...args);
          } catch (err) {
            finish(false, err);
            throw err;
          }
          if (r.done) finish(false);
          else acc.add(r.value);
          return r;
        },
        async return(value?: unknown) {
          finish(true);
          return inner.return ? inner.return(value) : { done: true, value };
        },
        async throw(err?: unknown) {
          finish(false, err ?? new Error('stream aborted'));
          if (inner.throw) return inner.throw(err);
          throw err;
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      return wrapped;
    },
  });
}
