import pg from 'pg';
import type { Logger } from '../logger';

export const INVALIDATE_CHANNEL = 'proxy_invalidate';

/**
 * One LISTEN connection per api process on `proxy_invalidate`, fed by triggers on api_keys,
 * provider_keys and rate_limits (migration 004b). Payloads are `<kind>:<id>`; handlers drop the
 * matching cache entries. While the connection is down nothing is cached (`healthy` is false)
 * and caches are cleared, so a missed notification can never keep a stale entry alive.
 */
export class InvalidationListener {
  healthy = false;
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private backoffMs = 250;
  private readonly handlers = new Map<string, (id: string) => void>();
  private readonly onReset: (() => void)[] = [];

  constructor(
    private readonly url: string | undefined,
    private readonly logger: Logger,
  ) {}

  on(kind: string, fn: (id: string) => void): void {
    this.handlers.set(kind, fn);
  }

  /** Called whenever the connection is lost: every cache must forget everything. */
  onDisconnect(fn: () => void): void {
    this.onReset.push(fn);
  }

  async start(): Promise<void> {
    if (!this.url) return;
    try {
      await this.connect();
    } catch (err) {
      this.logger.warn({ err }, 'proxy invalidation LISTEN failed; caching disabled until it reconnects');
      this.scheduleReconnect();
    }
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'llm-gateway-proxy-listen' });
    client.on('notification', (msg) => {
      if (msg.channel !== INVALIDATE_CHANNEL || !msg.payload) return;
      const i = msg.payload.indexOf(':');
      const fn = this.handlers.get(msg.payload.slice(0, i));
      fn?.(msg.payload.slice(i + 1));
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.reset();
      if (!this.stopped) {
        this.logger.warn({ err }, 'proxy invalidation connection lost; caching disabled until it reconnects');
        this.scheduleReconnect();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    await client.query(`listen ${INVALIDATE_CHANNEL}`);
    this.client = client;
    this.backoffMs = 250;
    this.healthy = true;
  }

  private reset(): void {
    this.healthy = false;
    for (const fn of this.onReset) fn();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect().catch(() => {
        this.backoffMs = Math.min(this.backoffMs * 2, 10_000);
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
    this.reset();
    await c?.end().catch(() => undefined);
  }
}
