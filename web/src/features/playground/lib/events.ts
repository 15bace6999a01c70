import * as z from 'zod/mini';

/**
 * The playground's server-sent events (`stream: true`): `delta` {variant, text} as tokens arrive,
 * `result` (a variant's PlaygroundRun entry), `done`, or `error`. The OpenAPI document describes
 * only the JSON answer, so the events are checked here when they arrive.
 */
export const deltaEvent = z.object({ variant: z.number(), text: z.string() });
export const resultEvent = z.object({
  index: z.number(),
  provider: z.string(),
  model: z.string(),
  output: z.string(),
  latency_ms: z.number(),
  cost_usd: z.nullable(z.number()),
  usage: z.object({ total_tokens: z.number() }),
  error: z.nullable(z.object({ message: z.string(), status: z.number() })),
});
export const errorEvent = z.object({ error: z.string() });
export type VariantResult = z.infer<typeof resultEvent>;

/** Splits a text stream into `{event, data}` blocks (blank-line separated). */
export async function* sse(
  stream: ReadableStream<Uint8Array<ArrayBuffer>>,
): AsyncGenerator<{ event: string; data: unknown }> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    buf += r.value;
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined) yield { event, data: JSON.parse(data) as unknown };
    }
  }
}
