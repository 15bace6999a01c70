import { HttpError } from '../../../src/http/errors';
import { createSpanPricer } from '../../../src/ingest/cost';
import { toPgJson } from '../../../src/ingest/pg-json';
import { toOp } from '../../../src/ingest/schemas';
import { spanTree, type SpanOut } from '../../../src/traces/service';

const MB = 1024 * 1024;
const now = '2026-01-02T03:04:05.678Z';

function refusal(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('ingest payload schemas', () => {
  it('accepts the wire format and drops nulls and unknown keys', () => {
    const op = toOp(
      'trace.create',
      { id: 't-1', name: 'run', start_time: now, session_id: null, extra: 1, metadata: { a: 1 } },
      undefined,
      MB,
    );
    expect(op).toEqual({ op: 'trace.create', id: 't-1', fields: { name: 'run', start_time: now, metadata: { a: 1 } } });
  });

  it('accepts camelCase token aliases and derives the total', () => {
    const op = toOp('span.update', { promptTokens: 10, completionTokens: 4 }, 's-1', MB);
    expect(op.fields).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
    const both = toOp('span.update', { prompt_tokens: 1, promptTokens: 99 }, 's-1', MB);
    expect(both.fields).toMatchObject({ prompt_tokens: 1 });
  });

  it('defaults span_type to other and keeps the given one', () => {
    expect(
      toOp('span.create', { id: 's', trace_id: 't', name: 'n', start_time: now }, undefined, MB).fields,
    ).toMatchObject({ span_type: 'other' });
    expect(
      toOp('span.create', { id: 's', trace_id: 't', name: 'n', start_time: now, span_type: 'retrieval' }, undefined, MB)
        .fields,
    ).toMatchObject({ span_type: 'retrieval' });
  });

  it.each([
    ['trace.create', { name: 'x', start_time: now }, 'body.id'],
    ['trace.create', { id: 't', start_time: now }, 'body.name'],
    ['trace.create', { id: 't', name: 'x', start_time: 'yesterday' }, 'body.start_time'],
    ['trace.create', { id: 'has space', name: 'x', start_time: now }, 'body.id'],
    ['trace.create', { id: 'x'.repeat(129), name: 'x', start_time: now }, 'body.id'],
    ['trace.create', { id: 't', name: 'x', start_time: now, status: 'done' }, 'body.status'],
    ['trace.create', { id: 't', name: 'x', start_time: now, end_time: '2020-01-01T00:00:00Z' }, 'body.end_time'],
    ['trace.create', { id: 't', name: 'x', start_time: now, metadata: [1] }, 'body.metadata'],
    ['trace.update', { status: 'ok' }, 'body.status'],
    ['span.create', { id: 's', name: 'n', start_time: now }, 'body.trace_id'],
    ['span.create', { id: 's', trace_id: 't', name: 'n', start_time: now, span_type: 'llm-call' }, 'body.span_type'],
    ['span.update', { prompt_tokens: -1 }, 'body.prompt_tokens'],
    ['span.update', { total_tokens: 1.5 }, 'body.total_tokens'],
    ['span.update', { status: 'done' }, 'body.status'],
    ['span.update', { id: 'other' }, 'body.id'],
  ] as const)('%s refuses %j naming %s', (kind, body, field) => {
    const err = refusal(() => toOp(kind, body, kind.endsWith('update') ? 'the-id' : undefined, MB));
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation_error');
    expect(err.message).toContain(field);
  });

  it("accepts the spec's `completed` as a span status, stored as ok (issue 11)", () => {
    expect(toOp('span.update', { status: 'completed' }, 's-1', MB).fields).toEqual({ status: 'ok' });
    expect(
      toOp('span.create', { id: 's', trace_id: 't', name: 'n', start_time: now, status: 'completed' }, undefined, MB)
        .fields,
    ).toMatchObject({ status: 'ok' });
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'x', 3]) expect(refusal(() => toOp('span.update', body, 's', MB)).status).toBe(400);
  });

  it('refuses an oversized input/output/metadata field with 413 naming it', () => {
    const err = refusal(() => toOp('span.update', { output: 'y'.repeat(2000) }, 's', 1024));
    expect(err.status).toBe(413);
    expect(err.code).toBe('field_too_large');
    expect(err.details).toMatchObject({ field: 'body.output', limit_bytes: 1024 });
  });
});

describe('span cost', () => {
  const spanCostUsd = createSpanPricer();
  it('prices known models like the catalogue, tiered ones exactly, unknown ones as null', () => {
    expect(spanCostUsd('gpt-4o-mini', 1000, 1000)).toBeCloseTo(0.00015 + 0.0006, 10);
    expect(spanCostUsd('not-a-model-xyz', 10, 10)).toBeNull();
    expect(spanCostUsd(undefined, 10, 10)).toBeNull();
    expect(spanCostUsd('gpt-4o-mini', undefined, undefined)).toBeNull();
  });
});

describe('PostgreSQL-safe JSON', () => {
  it('removes NUL characters and lone surrogates, keeps everything else', () => {
    expect(JSON.parse(toPgJson({ a: 'x\u0000y', b: 'ok \ud83d\ude00', c: 'lone \ud800' }))).toEqual({
      a: 'xy',
      b: 'ok \ud83d\ude00',
      c: 'lone \ufffd',
    });
    expect(JSON.parse(toPgJson({ text: 'literal \\u0000 stays' }))).toEqual({ text: 'literal \\u0000 stays' });
  });
});

describe('span tree', () => {
  const s = (id: string, parent: string | null): SpanOut =>
    ({
      id,
      parent_span_id: parent,
      name: id,
      span_type: 'other',
      status: null,
      start_time: null,
      duration_ms: null,
    }) as SpanOut;
  it('nests children, treats unknown parents as roots and breaks cycles', () => {
    const tree = spanTree([s('a', null), s('b', 'a'), s('c', 'b'), s('orphan', 'missing'), s('x', 'y'), s('y', 'x')]);
    const shape = (n: { id: string; children: unknown[] }): unknown => ({ [n.id]: (n.children as never[]).map(shape) });
    expect(tree.map(shape)).toEqual([{ a: [{ b: [{ c: [] }] }] }, { orphan: [] }, { x: [{ y: [] }] }]);
  });
});
