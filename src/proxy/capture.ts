import zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import { bodyKind, NdjsonParser, SseParser, type BodyKind, type StreamParser } from './stream-parse';
import type { UsageDialect } from '../providers/providers';
import { UsageAccumulator } from '../providers/usage';

/**
 * The gateway's copy of an upstream answer. The caller gets every chunk first; the copy is kept
 * here for usage parsing and (in `full` log mode) storage. Streams are parsed incrementally as
 * chunks arrive; whole bodies are parsed once at the end. Compressed answers are decoded for the
 * copy only: the caller receives the provider's bytes unchanged.
 */
export interface CaptureResult {
  kind: BodyKind;
  /** Decoded body (possibly cut at the storage cap) for the log; '' when not kept. */
  text: string;
  /** Decoded size in bytes, or -1 when it could not be decoded. */
  size: number;
  /** The decoded body when it was JSON small enough to parse (cache candidates). */
  decoded: Buffer | null;
  json: unknown;
  acc: UsageAccumulator;
  tooLarge: boolean;
}

export interface CaptureOptions {
  dialect: UsageDialect;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** Keep this many decoded bytes for storage (0: keep none). */
  keepBytes: number;
  /** Whole (non-stream) bodies above this are not parsed. */
  parseMaxBytes: number;
}

const TEXTUAL = /^(text\/|application\/([\w.+-]*\+)?(json|xml)\b|application\/x-ndjson|application\/javascript)/i;

function decoderFor(encoding: string | undefined): (() => Transform) | null | undefined {
  const e = (encoding ?? '').trim().toLowerCase();
  if (!e || e === 'identity') return null;
  if (e === 'gzip' || e === 'x-gzip') return () => zlib.createGunzip();
  if (e === 'deflate') return () => zlib.createInflate();
  if (e === 'br') return () => zlib.createBrotliDecompress();
  return undefined; // unknown coding: cannot look inside
}

export class ResponseCapture {
  readonly kind: BodyKind;
  readonly acc: UsageAccumulator;
  private readonly parser: StreamParser | null;
  private readonly decoder: Transform | null = null;
  private readonly undecodable: boolean;
  private readonly textual: boolean;
  private raw: Buffer[] = [];
  private rawBytes = 0;
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private decodedBytes = 0;
  private tooLarge = false;
  private decoderDone: Promise<void> | null = null;

  constructor(private readonly opts: CaptureOptions) {
    this.kind = bodyKind(opts.contentType);
    this.acc = new UsageAccumulator(opts.dialect);
    this.textual = !opts.contentType || TEXTUAL.test(opts.contentType);
    const make = decoderFor(opts.contentEncoding);
    this.undecodable = make === undefined;
    const onJson = (v: unknown) => this.acc.feed(v);
    this.parser =
      this.kind === 'sse' ? new SseParser(onJson) : this.kind === 'ndjson' ? new NdjsonParser(onJson) : null;
    if (this.parser && make) {
      // Streams are decoded as they come so usage is read incrementally.
      const d = make();
      this.decoder = d;
      d.on('data', (c: Buffer) => this.onDecoded(c));
      this.decoderDone = new Promise((resolve) => {
        d.once('end', resolve);
        d.once('error', () => resolve());
      });
    }
  }

  push(chunk: Buffer): void {
    if (this.undecodable) {
      this.decodedBytes = -1;
      return;
    }
    if (this.parser) {
      if (this.decoder) this.decoder.write(chunk);
      else this.onDecoded(chunk);
      return;
    }
    // Whole bodies: keep the (possibly compressed) bytes until the end, within the parse cap.
    if (this.tooLarge) {
      this.rawBytes += chunk.length;
      return;
    }
    this.rawBytes += chunk.length;
    if (this.rawBytes > this.opts.parseMaxBytes) {
      this.tooLarge = true;
      this.raw = [];
      return;
    }
    this.raw.push(chunk);
  }

  private onDecoded(c: Buffer): void {
    this.decodedBytes += c.length;
    this.parser!.push(c);
    this.keep(c);
  }

  private keep(c: Buffer): void {
    if (!this.textual) return;
    const room = this.opts.keepBytes - this.keptBytes;
    if (room <= 0) return;
    const part = c.length > room ? c.subarray(0, room) : c;
    this.kept.push(part);
    this.keptBytes += part.length;
  }

  async end(): Promise<CaptureResult> {
    let json: unknown = undefined;
    let decoded: Buffer | null = null;
    let decodedText: string | undefined; // decoded once, for both the parse and the stored copy
    if (this.parser) {
      if (this.decoder) {
        this.decoder.end();
        await this.decoderDone;
      }
      this.parser.end();
    } else if (!this.undecodable && !this.tooLarge) {
      const raw = this.raw.length === 1 ? this.raw[0]! : Buffer.concat(this.raw);
      this.raw = [];
      decoded = await decode(raw, this.opts.contentEncoding);
      if (decoded) {
        this.decodedBytes = decoded.length;
        this.keep(decoded);
        if (this.kind === 'json' || (this.kind === 'other' && looksLikeJson(decoded))) {
          try {
            decodedText = decoded.toString('utf8');
            json = JSON.parse(decodedText);
            this.acc.feed(json);
          } catch {
            json = undefined;
          }
        }
      } else {
        this.decodedBytes = -1;
      }
    } else if (this.tooLarge) {
      this.decodedBytes = this.opts.contentEncoding ? -1 : this.rawBytes;
    }
    const size = this.decodedBytes;
    let text = '';
    if (this.opts.keepBytes > 0) {
      if (!this.textual)
        text = `[binary response body: ${size >= 0 ? size : this.rawBytes} bytes, ${this.opts.contentType}]`;
      else if (this.undecodable || size < 0)
        text = `[response body not decodable: content-encoding ${this.opts.contentEncoding}]`;
      else if (this.tooLarge && !this.parser) text = `[response body of ${size} bytes not kept: above the parse limit]`;
      else {
        const whole = decodedText !== undefined && decoded !== null && this.keptBytes === decoded.length;
        text = whole ? decodedText! : Buffer.concat(this.kept).toString('utf8');
        if (size > this.keptBytes) text += `\n[truncated: ${size} bytes in total]`;
      }
    }
    this.kept = [];
    return { kind: this.kind, text, size, decoded, json, acc: this.acc, tooLarge: this.tooLarge };
  }
}

function looksLikeJson(b: Buffer): boolean {
  for (const byte of b) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7b || byte === 0x5b;
  }
  return false;
}

function decode(raw: Buffer, encoding: string | undefined): Promise<Buffer | null> {
  const e = (encoding ?? '').trim().toLowerCase();
  if (!e || e === 'identity') return Promise.resolve(raw);
  const fn =
    e === 'gzip' || e === 'x-gzip'
      ? zlib.gunzip
      : e === 'deflate'
        ? zlib.inflate
        : e === 'br'
          ? zlib.brotliDecompress
          : null;
  if (!fn) return Promise.resolve(null);
  return new Promise((resolve) => fn(raw, (err, out) => resolve(err ? null : out)));
}
