/**
 * A small per-process memo with a time-to-live, for lookups on the proxy's hot path (provider
 * keys). Concurrent misses for one key share a single load. Misses (null) are not remembered,
 * so a key added by an admin works on the next call.
 */
export class TtlCache<V> {
  private entries = new Map<string, { value: V; until: number }>();
  private loading = new Map<string, Promise<V | null>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (this.ttlMs <= 0) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    let p = this.loading.get(key);
    if (!p) {
      p = load().finally(() => this.loading.delete(key));
      this.loading.set(key, p);
      p.then((value) => {
        if (value === null) return;
        if (this.entries.size >= this.maxEntries) this.entries.clear();
        this.entries.set(key, { value, until: Date.now() + this.ttlMs });
      }).catch(() => undefined);
    }
    return p;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
