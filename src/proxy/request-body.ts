import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { HttpError } from '../http/errors';
import { storableText as cleanText } from '../http/text';

/** Parses '20mb' / '512kb' / '100b' into bytes. */
export function parseByteSize(s: string): number {
  const m = /^(\d+)(b|kb|mb)$/i.exec(s.trim());
  if (!m) throw new Error(`bad byte size ${s}`);
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  return unit === 'mb' ? n * 1024 * 1024 : unit === 'kb' ? n * 1024 : n;
}

const tooLarge = (limit: number) =>
  new HttpError(
    413,
    'payload_too_large',
    `Request body is larger than the proxy limit of ${limit} bytes`,
    { limit_bytes: limit },
    { connection: 'close' },
  );

/** Reads the raw request body, byte-exact, refusing more than `limit` bytes with 413. */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume(); // drain and discard; the 413 closes the connection
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const onData = (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.once('error', (err) => {
      if (failed) return;
      failed = true;
      reject(new HttpError(400, 'request_aborted', `Request body could not be read: ${err.message}`));
    });
  });
}

const TEXTUAL =
  /^(text\/|application\/([\w.+-]*\+)?(json|xml)\b|application\/x-www-form-urlencoded|application\/x-ndjson)/i;

/**
 * The request body as text for the log and for JSON parsing: decoded when the caller compressed
 * it, a short placeholder for binary uploads (audio, images in multipart forms).
 */
export function requestBodyText(
  body: Buffer,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): { text: string; binary: boolean } {
  if (body.length === 0) return { text: '', binary: false };
  let bytes = body;
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc && enc !== 'identity') {
    try {
      const max = { maxOutputLength: 64 * 1024 * 1024 };
      bytes =
        enc === 'gzip' || enc === 'x-gzip'
          ? zlib.gunzipSync(body, max)
          : enc === 'deflate'
            ? zlib.inflateSync(body, max)
            : enc === 'br'
              ? zlib.brotliDecompressSync(body, max)
              : body;
    } catch {
      return { text: `[request body not decodable: content-encoding ${enc}]`, binary: true };
    }
  }
  if (contentType && !TEXTUAL.test(contentType)) {
    return { text: `[binary request body: ${bytes.length} bytes, ${contentType}]`, binary: true };
  }
  return { text: bytes.toString('utf8'), binary: false };
}

/**
 * Text for a request-log column: cut to `max` UTF-16 units with a marker, then made storable
 * (NUL removed, lone surrogates, including one left by the cut, replaced by U+FFFD).
 */
export function storableText(text: string, max: number): string {
  return cleanText(text.length > max ? `${text.slice(0, max)}\n[truncated: ${text.length} characters in total]` : text);
}
