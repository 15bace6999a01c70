import { StringDecoder } from 'node:string_decoder';

/**
 * Incremental parsers for streamed answers. They take raw chunks exactly as they arrive
 * (split anywhere, even inside a UTF-8 sequence) and hand each complete JSON payload on.
 * Payloads that are not JSON (`[DONE]`, comments, keep-alives) are skipped.
 */
export interface StreamParser {
  push(chunk: Buffer): void;
  end(): void;
}

function tryJson(s: string): unknown {
  const t = s.trim();
  if (!t || (t[0] !== '{' && t[0] !== '[')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** Splits raw chunks into complete lines (UTF-8 safe across chunk borders); subclasses read the lines. */
abstract class LineParser implements StreamParser {
  private decoder = new StringDecoder('utf8');
  private buf = '';

  constructor(protected readonly onJson: (value: unknown) => void) {}

  push(chunk: Buffer): void {
    this.buf += this.decoder.write(chunk);
    let start = 0;
    for (;;) {
      const nl = this.buf.indexOf('\n', start);
      if (nl === -1) break;
      this.line(this.buf.slice(start, nl));
      start = nl + 1;
    }
    this.buf = this.buf.slice(start);
  }

  end(): void {
    const rest = this.buf + this.decoder.end();
    this.buf = '';
    this.finish(rest);
  }

  /** One line without its `\n` (a trailing `\r` is left for the subclass). */
  protected abstract line(line: string): void;
  /** The unterminated remainder when the stream ends. */
  protected abstract finish(rest: string): void;
}

/** Server-sent events (text/event-stream): `data:` lines joined per event, dispatched on a blank line. */
export class SseParser extends LineParser {
  private data: string[] = [];

  protected line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') return this.dispatch();
    if (line.startsWith('data:')) {
      this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
    }
    // event:, id:, retry: and comments carry nothing we need: the JSON payload names its type.
  }

  protected finish(rest: string): void {
    // A lone CR line ending (allowed by the SSE spec) is rare enough to handle only at the end.
    if (rest) for (const l of rest.split(/\r\n|\r|\n/)) this.line(l);
    this.dispatch();
  }

  private dispatch(): void {
    if (!this.data.length) return;
    const payload = this.data.join('\n');
    this.data = [];
    const v = tryJson(payload);
    if (v !== undefined) this.onJson(v);
  }
}

/** Newline-delimited JSON (Ollama's native streams). */
export class NdjsonParser extends LineParser {
  protected line(line: string): void {
    const v = tryJson(line);
    if (v !== undefined) this.onJson(v);
  }

  protected finish(rest: string): void {
    this.line(rest);
  }
}

export type BodyKind = 'sse' | 'ndjson' | 'json' | 'other';

export function bodyKind(contentType: string | undefined): BodyKind {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.startsWith('text/event-stream')) return 'sse';
  if (ct.includes('ndjson') || ct.includes('jsonl') || ct.includes('json-seq')) return 'ndjson';
  if (/^application\/([\w.+-]*\+)?json\b/.test(ct) || ct.startsWith('text/json')) return 'json';
  return 'other';
}
