import type { ServerResponse } from 'node:http';

/**
 * Passes an upstream body to the caller but keeps back its final piece until `release()`: the
 * caller must not hold a complete answer before the call's request row is journaled. With a
 * `content-length` the final piece is the chunk that completes the length (the caller is done
 * when it has that many bytes); otherwise it is the end of the chunked body, sent by `res.end()`.
 */
export class HeldEnd {
  private remaining: number | null;
  private held: Buffer | null = null;

  constructor(
    private readonly res: ServerResponse,
    contentLength: string | string[] | undefined,
  ) {
    const n = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
    this.remaining = contentLength !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : null;
  }

  /** Like `res.write`: false asks the source to pause until 'drain'. */
  write(chunk: Buffer): boolean {
    if (this.remaining !== null) {
      this.remaining -= chunk.length;
      if (this.remaining <= 0) {
        this.held = this.held ? Buffer.concat([this.held, chunk]) : chunk;
        return true;
      }
    }
    return this.res.write(chunk);
  }

  /** Sends what was kept back and ends the answer (a no-op once the caller is gone). */
  release(): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    if (this.held) this.res.end(this.held);
    else this.res.end();
    this.held = null;
  }
}
