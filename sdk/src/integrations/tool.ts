import type { GatewayClient } from '../client';
import { argumentsInput } from '../client';
import { currentScope } from '../handles';
import type { Metadata } from '../types';

export interface WrapToolOptions {
  /** Span name, e.g. the tool's name as the model sees it. */
  name: string;
  /** Default `tool`. */
  type?: 'tool' | 'retrieval';
  metadata?: Metadata;
  /**
   * Client to record with when the call is not inside an active trace (a standalone
   * trace is started per call). Without it, calls outside a trace are not recorded.
   */
  tracer?: GatewayClient;
}

/**
 * Wraps a tool or retrieval function so that each call is a span: nested under the active
 * span/trace, input = the argument (or the argument list when there are several),
 * output = the resolved value; a throw marks the span `error` and is rethrown unchanged.
 * The wrapper always returns a Promise.
 */
export function wrapTool<A extends unknown[], R>(
  fn: (...args: A) => R | Promise<R>,
  options: WrapToolOptions,
): (...args: A) => Promise<R> {
  const spanOptions = { name: options.name, type: options.type ?? ('tool' as const), metadata: options.metadata };
  return async function (this: unknown, ...args: A): Promise<R> {
    const call = () => fn.apply(this, args);
    const input = argumentsInput(args);
    if (options.tracer) return options.tracer.withSpan({ ...spanOptions, input }, call);
    const scope = currentScope();
    if (!scope) return call();
    const parent = scope.span ?? scope.trace;
    return parent.withSpan({ ...spanOptions, input }, call);
  };
}
