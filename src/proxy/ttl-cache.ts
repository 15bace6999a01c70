/**
 * A small per-process memo with a time-to-live for lookups on the proxy's hot path (API-key auth,
 * provider keys, rate-limit settings). Entries are dropped on change notifications
 * (ProxyCaches in caches.ts); the TTL is only a backstop. Concurrent misses for one key share
 * one load, misses (null) are not remembered, and a load that raced with an invalidation is not
 * stored, so a change is never masked by a read that started before it.
 */
export class TtlCache<V> {
  private entries = new Map<string, { value: V; until: number }>();
  private loading = new Map<string, Promise<V | null>>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    /** Caching is off while this says no (e.g. the invalidation listener is disconnected). */
    private readonly enabled: () => boolean = () => true,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value without loading, or undefined. */
  peek(key: string): V | undefined {
    if (this.ttlMs <= 0 || !this.enabled()) return undefined;
    const hit = this.entries.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    return undefined;
  }

  set(key: string, value: V, generation: number): void {
    if (this.ttlMs <= 0 || !this.enabled() || generation !== this.generation) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }

  /** Read before starting a load; pass to {@link set}. */
  get currentGeneration(): number {
    return this.generation;
  }

  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    if (this.ttlMs <= 0 || !this.enabled()) return load();
    let p = this.loading.get(key);
    if (!p) {
      const gen = this.generation;
      p = load().finally(() => this.loading.delete(key));
      this.loading.set(key, p);
      p.then((value) => {
        if (value !== null) this.set(key, value, gen);
      }).catch(() => undefined);
    }
    return p;
  }

  invalidate(key: string): void {
    this.generation++;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }
}
