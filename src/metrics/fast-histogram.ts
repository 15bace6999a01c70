import type { Registry } from 'prom-client';

/** One label set's counts: `counts[i]` observations in (bounds[i-1], bounds[i]], the last one above every bound. */
interface Series {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
  /** prom-client's buckets carry one (null without exemplars); kept so JSON exports read the same. */
  exemplar?: null;
}

/**
 * A Prometheus histogram for the proxy's hot path, exposed on a prom-client registry exactly as
 * prom-client's own `Histogram` is. prom-client checks and hashes the label values on every
 * `observe`, even through a `labels()` child: three such calls were 2 % of a proxied call's CPU.
 * Here a child is resolved once and an observation is a bucket search and three additions.
 */
export class FastHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly bounds: number[];
  private readonly series = new Map<string, Series>();

  constructor(
    readonly opts: { name: string; help: string; labelNames: readonly L[]; buckets: number[]; registers: Registry[] },
  ) {
    this.bounds = [...opts.buckets].sort((a, b) => a - b);
    for (const r of opts.registers) r.registerMetric(this as never);
  }

  get name(): string {
    return this.opts.name;
  }

  get help(): string {
    return this.opts.help;
  }

  /** The series of these label values, in `labelNames` order; keep it to observe without lookups. */
  labels(...values: string[]): { observe(v: number): void } {
    if (values.length !== this.opts.labelNames.length)
      throw new Error(`${this.name}: expected ${this.opts.labelNames.length} label values, got ${values.length}`);
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      const labels = Object.fromEntries(this.opts.labelNames.map((n, i) => [n, values[i]!]));
      s = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const t = s;
    const bounds = this.bounds;
    return {
      observe: (v: number) => {
        if (!Number.isFinite(v)) throw new TypeError(`${this.name}: not a finite number: ${v}`);
        let i = 0;
        while (i < bounds.length && v > bounds[i]!) i++;
        t.counts[i]!++;
        t.sum += v;
        t.count++;
      },
    };
  }

  /** Zeroes every series in place, so children kept by callers go on counting. */
  reset(): void {
    for (const s of this.series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }

  /** What a prom-client registry reads: cumulative buckets with `le`, then `_sum` and `_count`. */
  get(): { name: string; help: string; type: string; aggregator: string; values: ExportedValue[] } {
    const values: ExportedValue[] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((b, i) => {
        acc += s.counts[i]!;
        values.push({ labels: { le: b, ...s.labels }, value: acc, metricName: `${this.name}_bucket`, exemplar: null });
      });
      values.push({
        labels: { le: '+Inf', ...s.labels },
        value: s.count,
        metricName: `${this.name}_bucket`,
        exemplar: null,
      });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
