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

/** Server-sent events (text/event-stream): `data:` lines joined per event, dispatched on a blank line. */
export class SseParser implements StreamParser {
  private decoder = new StringDecoder('utf8');
  private buf = '';
  private data: string[] = [];

  constructor(private readonly onJson: (value: unknown) => void) {}

  push(chunk: Buffer): void {
    this.buf += this.decoder.write(chunk);
    let start = 0;
    for (;;) {
      const nl = this.buf.indexOf('\n', start);
      if (nl === -1) break;
      let line = this.buf.slice(start, nl);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = nl + 1;
      this.line(line);
    }
    this.buf = this.buf.slice(start);
    // A lone CR line ending (allowed by the SSE spec) is rare enough to handle only at the end.
  }

  end(): void {
    this.buf += this.decoder.end();
    if (this.buf) for (const l of this.buf.split(/\r\n|\r|\n/)) this.line(l);
    this.buf = '';
    this.dispatch();
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith('data:')) {
      this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
    }
    // event:, id:, retry: and comments carry nothing we need: the JSON payload names its type.
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
export class NdjsonParser implements StreamParser {
  private decoder = new StringDecoder('utf8');
  private buf = '';

  constructor(private readonly onJson: (value: unknown) => void) {}

  push(chunk: Buffer): void {
    this.buf += this.decoder.write(chunk);
    let start = 0;
    for (;;) {
      const nl = this.buf.indexOf('\n', start);
      if (nl === -1) break;
      const v = tryJson(this.buf.slice(start, nl));
      start = nl + 1;
      if (v !== undefined) this.onJson(v);
    }
    this.buf = this.buf.slice(start);
  }

  end(): void {
    this.buf += this.decoder.end();
    const v = tryJson(this.buf);
    this.buf = '';
    if (v !== undefined) this.onJson(v);
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
