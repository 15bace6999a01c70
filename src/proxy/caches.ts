import type { Config } from '../config';
import type { LocalChanges } from '../db/changes';
import { PgListener } from '../db/listener';
import type { Logger } from '../logger';
import type { RateLimitConfig } from '../rate-limits/admission';
import { TtlCache } from './ttl-cache';

const INVALIDATE_CHANNEL = 'proxy_invalidate';

export interface AuthEntry {
  keyId: string;
  projectId: string;
  orgId: string;
}

/** Cached "no rate limit configured" (the cache does not keep nulls). */
export const NO_LIMIT = { none: true } as const;

/**
 * The proxy's per-process memo of hot-path lookups: full-key auth (by key hash), provider keys
 * (by `project:provider`) and rate-limit settings (by project). Entries are evicted explicitly:
 * by the triggers' NOTIFY (`<kind>:<id>`, any process's writes) and by this process's own writes
 * (LocalChanges, before the API answers). While the LISTEN connection is down nothing is cached,
 * so a missed notification can never keep a stale entry alive.
 */
export class ProxyCaches {
  readonly auth: TtlCache<AuthEntry>;
  readonly providerKeys: TtlCache<{ apiKey: string | null; baseUrl: string | null }>;
  readonly rateLimits: TtlCache<RateLimitConfig | typeof NO_LIMIT>;
  private readonly listener: PgListener | undefined;
  private readonly unsubscribe: (() => void)[];

  constructor(config: Config, changes: LocalChanges, logger: Logger) {
    const live = () => this.connected;
    const ttl = config.PROXY_KEY_CACHE_TTL_MS;
    this.auth = new TtlCache(ttl, live);
    this.providerKeys = new TtlCache(ttl, live);
    this.rateLimits = new TtlCache(ttl, live);
    const byKind: Record<string, TtlCache<unknown>> = {
      api_key: this.auth,
      provider_key: this.providerKeys,
      rate_limit: this.rateLimits,
    };
    this.listener = config.DATABASE_URL
      ? new PgListener({
          url: config.DATABASE_URL,
          channels: [INVALIDATE_CHANNEL],
          logger,
          name: 'llm-gateway-proxy-listen',
          onNotify: (_channel, payload) => {
            const i = payload.indexOf(':');
            byKind[payload.slice(0, i)]?.invalidate(payload.slice(i + 1));
          },
          onDisconnect: () => this.clearAll(),
        })
      : undefined;
    this.unsubscribe = [
      changes.on('api_keys', () => this.auth.clear()),
      changes.on('provider_keys', () => this.providerKeys.clear()),
      changes.on('rate_limits', () => this.rateLimits.clear()),
    ];
  }

  /** True while notifications flow; caching is on only then. */
  get connected(): boolean {
    return this.listener?.connected ?? false;
  }

  start = () => this.listener?.start() ?? Promise.resolve();

  clearAll(): void {
    this.auth.clear();
    this.providerKeys.clear();
    this.rateLimits.clear();
  }

  async stop(): Promise<void> {
    for (const fn of this.unsubscribe) fn();
    await this.listener?.stop();
  }
}
