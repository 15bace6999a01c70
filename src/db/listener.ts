import pg from 'pg';
import type { Logger } from '../logger';

export interface PgListenerOptions {
  url: string;
  channels: string[];
  logger: Logger;
  /** application_name of the LISTEN connection (shows in pg_stat_activity). */
  name: string;
  onNotify: (channel: string, payload: string) => void;
  /** After every (re)connect: notifications sent while disconnected were missed, so catch up. */
  onConnect?: () => void;
  /** On every loss of the connection (and on stop): caches fed by it must forget. */
  onDisconnect?: () => void;
  maxBackoffMs?: number;
}

/**
 * One dedicated LISTEN connection that reconnects with exponential backoff (250 ms to 10 s).
 * Used by the outbox dispatcher (wake-ups) and the proxy's cache invalidation. `connected` tells
 * whether notifications are flowing now.
 */
export class PgListener {
  connected = false;
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private backoffMs = 250;

  constructor(private readonly opts: PgListenerOptions) {}

  /** Connects once; on failure it keeps retrying in the background and resolves anyway. */
  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (err) {
      this.opts.logger.warn({ err, listener: this.opts.name }, 'LISTEN connection failed; retrying in the background');
      this.scheduleReconnect();
    }
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.url, application_name: this.opts.name });
    client.on('notification', (msg) => this.opts.onNotify(msg.channel, msg.payload ?? ''));
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.connected = false;
      this.opts.onDisconnect?.();
      if (!this.stopped) {
        this.opts.logger.warn({ err, listener: this.opts.name }, 'LISTEN connection lost; reconnecting');
        this.scheduleReconnect();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      for (const ch of this.opts.channels) await client.query(`listen ${pg.escapeIdentifier(ch)}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.backoffMs = 250;
    this.connected = true;
    this.opts.onConnect?.();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect().catch(() => {
        this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 10_000);
        this.scheduleReconnect();
      });
    }, this.backoffMs);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = undefined;
    this.connected = false;
    this.opts.onDisconnect?.();
    await c?.end().catch(() => undefined);
  }
}
