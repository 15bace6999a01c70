import { storableText } from '../http/text';
import { ATTEMPT_EXCERPT_BYTES } from './policy';
import type { AttemptOutcome, RedirectHop } from './safe-http';

/**
 * What the attempt history keeps of one attempt's exchange (docs/webhooks.md): each redirect
 * (status, Location), and the first 1 KB of the last response's headers and body. Never what we
 * sent: no signature, no secret. A receiver that echoes either back gets it replaced by
 * `[redacted]` before the cut, so not even a prefix of it is stored.
 */
export interface AttemptEvidence {
  redirects: RedirectHop[];
  response_headers: string | null;
  response_body: string | null;
  response_body_truncated: boolean;
}

export const NO_EVIDENCE: AttemptEvidence = {
  redirects: [],
  response_headers: null,
  response_body: null,
  response_body_truncated: false,
};

const REDACTED = '[redacted]';
const LOCATION_MAX = 2048;

/** The longest prefix of `buf` up to `max` bytes that does not cut a UTF-8 character. */
function utf8Prefix(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let end = max;
  // buf[end] is the first byte left out: if it continues a character, leave that whole character out.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

/**
 * Replaces every secret in `text`, then cuts it to `max` UTF-8 bytes; text PostgreSQL cannot store is made storable.
 */
export function scrubbed(text: string, secrets: readonly string[], max = ATTEMPT_EXCERPT_BYTES): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join(REDACTED);
  return storableText(utf8Prefix(Buffer.from(out, 'utf8'), max).toString('utf8'));
}

/** `name: value` lines, as on the wire (undici gives lower-case names; repeated headers one line each). */
function headerLines(headers: Record<string, string | string[] | undefined>): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) lines.push(`${name}: ${v}`);
  }
  return lines.join('\n');
}

/**
 * The evidence of an outcome. `secrets` are the values that must never be stored: each signature
 * header's value and bare digests (hex and Standard Webhooks base64) and every secret signed with.
 */
export function attemptEvidence(
  out: Pick<AttemptOutcome, 'hops' | 'response'>,
  secrets: readonly string[],
): AttemptEvidence {
  const r = out.response;
  return {
    redirects: out.hops.map((h) => ({ status: h.status, location: scrubbed(h.location, secrets, LOCATION_MAX) })),
    response_headers: r ? scrubbed(headerLines(r.headers), secrets) : null,
    // Decoded as UTF-8 (invalid bytes become U+FFFD): the history is for reading, not replaying.
    response_body: r ? scrubbed(r.head.toString('utf8'), secrets) : null,
    response_body_truncated: r ? r.bytes > ATTEMPT_EXCERPT_BYTES : false,
  };
}
