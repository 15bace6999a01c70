import { safeStringify, utf8Bytes } from './json';

export const DEFAULT_MAX_PAYLOAD_BYTES = 16_384;

/** What an oversized input/output is replaced with. */
export interface TruncatedPayload {
  __truncated: true;
  /** A prefix of the value (of the string itself for strings, of its JSON text otherwise). */
  preview: string;
  /** UTF-8 size of the value's full JSON text. */
  originalBytes: number;
}

/**
 * Caps a span/trace input or output at `maxBytes` of UTF-8 JSON. Values that fit are
 * returned unchanged; larger ones become a {@link TruncatedPayload} whose own JSON text
 * also fits in `maxBytes`, so the cap holds for what goes on the wire.
 */
export function capPayload(value: unknown, maxBytes: number): unknown {
  if (value === undefined) return undefined;
  const json = safeStringify(value);
  if (json === undefined) return undefined; // functions, symbols: nothing to record
  const originalBytes = utf8Bytes(json);
  if (originalBytes <= maxBytes) return value;

  const envelopeBytes = utf8Bytes(JSON.stringify({ __truncated: true, preview: '', originalBytes }));
  const source = typeof value === 'string' ? value : json;
  const preview = jsonSafePrefix(source, Math.max(0, maxBytes - envelopeBytes));
  return { __truncated: true, preview, originalBytes } satisfies TruncatedPayload;
}

/**
 * The longest prefix of `text` whose JSON string encoding (without quotes) takes at most
 * `budget` UTF-8 bytes. It walks whole code points, so a surrogate pair (a 4-byte UTF-8
 * character) is never split.
 */
export function jsonSafePrefix(text: string, budget: number): string {
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const cost = jsonEncodedBytes(ch);
    if (used + cost > budget) break;
    used += cost;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** UTF-8 bytes one code point takes inside a JSON string literal. */
function jsonEncodedBytes(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp === 0x22 || cp === 0x5c) return 2; // \" and \\
  if (cp < 0x20) return cp === 0x08 || cp === 0x09 || cp === 0x0a || cp === 0x0c || cp === 0x0d ? 2 : 6;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp >= 0xd800 && cp <= 0xdfff) return 6; // lone surrogate: JSON.stringify writes \udxxx
  if (cp < 0x10000) return 3;
  return 4;
}
