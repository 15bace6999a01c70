/**
 * The load of `bench:ingest` (bench/ingest.ts): 20-span agent traces (a root, LLM spans with
 * gen_ai attributes and content, tool and retrieval spans) encoded as OTLP/HTTP protobuf batches.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { encodeRequest } from '../src/ingest/otlp/decode';

export const SPANS_PER_TRACE = 20;

const hex = (n: number) => randomBytes(n).toString('hex');
const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();
const attr = (key: string, v: string | number) => ({
  key,
  value: typeof v === 'number' ? { intValue: v } : { stringValue: v },
});

/** One 20-span agent trace: root → 6 × (LLM call → tool call, retrieval) + 1 final LLM call. */
function agentTrace(t0: number): Record<string, unknown>[] {
  const traceId = Buffer.from(hex(16), 'hex');
  const rootId = Buffer.from(hex(8), 'hex');
  const spans: Record<string, unknown>[] = [];
  const mk = (
    id: Buffer,
    parent: Buffer | undefined,
    name: string,
    start: number,
    end: number,
    attributes: unknown[],
  ) => ({
    traceId,
    spanId: id,
    parentSpanId: parent,
    name,
    kind: 1,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(end),
    attributes,
    status: { code: 0 },
  });
  spans.push(
    mk(rootId, undefined, 'agent run', t0, t0 + 2000, [
      attr('session.id', `s-${hex(3)}`),
      attr('user.id', 'bench-user'),
      attr('gen_ai.operation.name', 'invoke_agent'),
    ]),
  );
  let t = t0 + 1;
  while (spans.length < SPANS_PER_TRACE) {
    const llm = Buffer.from(hex(8), 'hex');
    spans.push(
      mk(llm, rootId, 'chat gpt-4o-mini', t, t + 80, [
        attr('gen_ai.operation.name', 'chat'),
        attr('gen_ai.request.model', 'gpt-4o-mini'),
        attr('gen_ai.usage.input_tokens', 420),
        attr('gen_ai.usage.output_tokens', 64),
        attr(
          'gen_ai.input.messages',
          '[{"role":"user","parts":[{"type":"text","content":"Summarise the order history for customer 1234."}]}]',
        ),
        attr(
          'gen_ai.output.messages',
          '[{"role":"assistant","parts":[{"type":"text","content":"Three orders, all delivered."}]}]',
        ),
      ]),
    );
    if (spans.length < SPANS_PER_TRACE)
      spans.push(
        mk(Buffer.from(hex(8), 'hex'), llm, 'execute_tool orders', t + 10, t + 30, [
          attr('gen_ai.operation.name', 'execute_tool'),
          attr('gen_ai.tool.name', 'orders'),
        ]),
      );
    if (spans.length < SPANS_PER_TRACE)
      spans.push(
        mk(Buffer.from(hex(8), 'hex'), rootId, 'vector search', t + 81, t + 90, [
          attr('openinference.span.kind', 'RETRIEVER'),
          attr('db.system', 'qdrant'),
        ]),
      );
    t += 100;
  }
  return spans;
}

/**
 * Pre-encoded request bodies holding `total` spans in batches of `batch` (whole traces, roots last
 * as exporters send them).
 */
export function payloads(total: number, batch: number, gzip: boolean): Buffer[] {
  const out: Buffer[] = [];
  let pending: Record<string, unknown>[] = [];
  const t0 = Date.now() - 3_600_000;
  for (let made = 0; made < total; made += SPANS_PER_TRACE) {
    const spans = agentTrace(t0 + made);
    pending.push(...spans.slice(1), spans[0]!);
    while (pending.length >= batch) {
      out.push(encode(pending.slice(0, batch), gzip));
      pending = pending.slice(batch);
    }
  }
  if (pending.length) out.push(encode(pending, gzip));
  return out;
}

function encode(spans: Record<string, unknown>[], gzip: boolean): Buffer {
  const body = Buffer.from(
    encodeRequest({
      resourceSpans: [
        {
          resource: { attributes: [attr('service.name', 'bench-agent'), attr('deployment.environment', 'bench')] },
          scopeSpans: [{ scope: { name: 'bench', version: '1.0.0' }, spans }],
        },
      ],
    }),
  );
  return gzip ? gzipSync(body) : body;
}
