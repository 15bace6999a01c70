import { capPayload, GatewayClient, type TruncatedPayload } from '../src';
import { jsonSafePrefix } from '../src/truncate';
import { API_KEY, recordingFetch, wireOps } from './helpers/gateway';

const MAX = 16_384;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const wireBytes = (v: unknown) => bytes(JSON.stringify(v));
/** A string is well-formed when it survives a UTF-8 round trip (no lone surrogate). */
const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;

function expectTruncated(v: unknown): TruncatedPayload {
  expect(v).toEqual({ __truncated: true, preview: expect.any(String), originalBytes: expect.any(Number) });
  return v as TruncatedPayload;
}

/** The preview is the longest prefix that keeps the serialized envelope within max. */
function expectMaximalPreview(source: string, result: TruncatedPayload, max: number) {
  expect(source.startsWith(result.preview)).toBe(true);
  expect(wellFormed(result.preview)).toBe(true);
  expect(wireBytes(result)).toBeLessThanOrEqual(max);
  const next = source.slice(result.preview.length).codePointAt(0);
  if (next !== undefined) {
    const longer = { ...result, preview: result.preview + String.fromCodePoint(next) };
    expect(wireBytes(longer)).toBeGreaterThan(max);
  }
}

describe('capPayload', () => {
  it('returns values that fit unchanged (the same reference)', () => {
    const v = { a: [1, 2, 3], b: 'ü' };
    expect(capPayload(v, MAX)).toBe(v);
    expect(capPayload(undefined, MAX)).toBeUndefined();
    expect(capPayload(null, MAX)).toBeNull();
  });

  it('cuts exactly at the limit: 16,384 bytes fit, 16,385 do not', () => {
    const fits = 'a'.repeat(MAX - 2); // + 2 quotes = 16,384 bytes of JSON
    expect(capPayload(fits, MAX)).toBe(fits);
    const over = 'a'.repeat(MAX - 1);
    const t = expectTruncated(capPayload(over, MAX));
    expect(t.originalBytes).toBe(MAX + 1);
    expectMaximalPreview(over, t, MAX);
  });

  it('never splits an emoji (4-byte UTF-8, surrogate pair in JS)', () => {
    for (let shift = 0; shift < 4; shift++) {
      const s = 'a'.repeat(shift) + '😀'.repeat(5_000);
      const t = expectTruncated(capPayload(s, MAX));
      expect(t.originalBytes).toBe(shift + 4 * 5_000 + 2);
      expectMaximalPreview(s, t, MAX);
      expect(bytes(t.preview.slice(shift)) % 4).toBe(0);
    }
  });

  it('never splits a CJK character (3-byte UTF-8)', () => {
    for (let shift = 0; shift < 3; shift++) {
      const s = 'x'.repeat(shift) + '漢字かな'.repeat(2_000);
      const t = expectTruncated(capPayload(s, MAX));
      expect(t.originalBytes).toBe(shift + 3 * 8_000 + 2);
      expectMaximalPreview(s, t, MAX);
      expect(bytes(t.preview.slice(shift)) % 3).toBe(0);
    }
  });

  it('handles mixed 1-4 byte characters at every alignment', () => {
    const unit = 'aé漢😀'; // 1 + 2 + 3 + 4 bytes
    for (let shift = 0; shift < 10; shift++) {
      const s = 'b'.repeat(shift) + unit.repeat(2_000);
      const t = expectTruncated(capPayload(s, 4_096));
      expect(t.originalBytes).toBe(bytes(JSON.stringify(s)));
      expectMaximalPreview(s, t, 4_096);
    }
  });

  it('counts JSON escapes so the envelope still fits', () => {
    const s = '"\\\n\u0001'.repeat(10_000);
    const t = expectTruncated(capPayload(s, MAX));
    expect(t.originalBytes).toBe(bytes(JSON.stringify(s)));
    expectMaximalPreview(s, t, MAX);
  });

  it('truncates objects on their JSON text, with the exact original size', () => {
    const v = {
      messages: Array.from({ length: 400 }, (_, i) => ({
        role: 'user',
        content: `メッセージ ${i} 🚀 ${'z'.repeat(40)}`,
      })),
    };
    const json = JSON.stringify(v);
    const t = expectTruncated(capPayload(v, MAX));
    expect(t.originalBytes).toBe(bytes(json));
    expectMaximalPreview(json, t, MAX);
  });

  it('keeps the byte boundary right for small caps too', () => {
    const s = '😀'.repeat(100);
    const t = expectTruncated(capPayload(s, 128));
    expectMaximalPreview(s, t, 128);
  });

  it('jsonSafePrefix counts a lone surrogate as its escaped form', () => {
    const s = 'ab\ud800cd';
    expect(jsonSafePrefix(s, 2)).toBe('ab');
    expect(jsonSafePrefix(s, 7)).toBe('ab'); // \ud800 costs 6
    expect(jsonSafePrefix(s, 8)).toBe('ab\ud800');
  });

  it('does not throw on values JSON.stringify rejects', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const shared = { x: 1 };
    expect(() => capPayload(circular, MAX)).not.toThrow();
    expect(capPayload({ big: 10n, shared: [shared, shared] }, MAX)).toEqual({ big: 10n, shared: [shared, shared] });
    expect(capPayload(() => 1, MAX)).toBeUndefined();
  });
});

describe('payload cap through the client', () => {
  it('caps span and trace inputs/outputs on the wire at the default 16,384 bytes', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, fetch: rec.fetch, flushIntervalMs: 0 });
    const big = '字'.repeat(10_000);
    const t = c.startTrace({ name: 't', input: big });
    const s = t.startSpan({ name: 's', input: big });
    s.end({ output: { text: big } });
    t.end({ output: 'small' });
    await c.flush();
    const ops = wireOps(rec.requests);
    for (const v of [ops[0]!.body.input, ops[1]!.body.input, ops[2]!.body.output]) {
      expect(v.__truncated).toBe(true);
      expect(wireBytes(v)).toBeLessThanOrEqual(MAX);
    }
    expect(ops[0]!.body.input.originalBytes).toBe(30_002);
    expect(ops[3]!.body.output).toBe('small');
  });

  it('uses maxPayloadBytes when configured', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({
      baseUrl: 'http://gw.test',
      apiKey: API_KEY,
      fetch: rec.fetch,
      maxPayloadBytes: 1_024,
    });
    c.startTrace({ name: 't' }).startSpan({ name: 's', input: 'é'.repeat(600) });
    await c.flush();
    const input = wireOps(rec.requests)[1]!.body.input;
    expect(input.__truncated).toBe(true);
    expect(input.originalBytes).toBe(1_202);
    expect(wireBytes(input)).toBeLessThanOrEqual(1_024);
    expect(() => new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, maxPayloadBytes: 10 })).toThrow(
      /maxPayloadBytes/,
    );
  });

  it('snapshots values when recorded: later mutation does not change what is sent', async () => {
    const rec = recordingFetch();
    const c = new GatewayClient({ baseUrl: 'http://gw.test', apiKey: API_KEY, fetch: rec.fetch });
    const messages = [{ role: 'user', content: 'hi' }];
    c.startTrace({ name: 't' }).startSpan({ name: 's', input: messages });
    messages.push({ role: 'assistant', content: 'later' });
    await c.flush();
    expect(wireOps(rec.requests)[1]!.body.input).toEqual([{ role: 'user', content: 'hi' }]);
  });
});
