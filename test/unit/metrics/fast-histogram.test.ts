import { Histogram, Registry } from 'prom-client';
import { FastHistogram } from '../../../src/metrics/fast-histogram';

/** The hot-path histogram must read, on a registry, exactly like prom-client's own. */
describe('FastHistogram', () => {
  const opts = {
    name: 'gateway_x_seconds',
    help: 'A test series',
    labelNames: ['provider', 'status'] as const,
    buckets: [0.001, 0.01, 0.1, 0.5],
  };
  // On a bound, just below and above it, above every bound, zero, and label values that need escaping.
  const observations: [string, string, number][] = [
    ['openai', '200', 0.001],
    ['openai', '200', 0.0011],
    ['openai', '200', 0.0005],
    ['openai', '200', 7],
    ['openai', '500', 0],
    ['odd "name"\nx', 'aborted', 0.1],
    ['openai', '200', 0.5],
  ];

  function both() {
    const a = new Registry();
    const b = new Registry();
    const reference = new Histogram({ ...opts, registers: [a] });
    const fast = new FastHistogram({ ...opts, registers: [b] });
    for (const [p, s, v] of observations) {
      reference.labels(p, s).observe(v);
      fast.labels(p, s).observe(v);
    }
    return { a, b, reference, fast };
  }

  it('exposes the same text and JSON as prom-client for the same observations', async () => {
    const { a, b } = both();
    const text = await b.metrics();
    expect(text).toBe(await a.metrics());
    expect(text).toContain('gateway_x_seconds_bucket{le="0.001",provider="openai",status="200"} 2');
    expect(text).toContain('gateway_x_seconds_bucket{le="+Inf",provider="openai",status="200"} 5');
    expect(text).toContain('gateway_x_seconds_sum{provider="openai",status="200"} 7.5026');
    expect(await b.getMetricsAsJSON()).toEqual(await a.getMetricsAsJSON());
  });

  it('keeps a child across a reset, refuses wrong label counts and non-finite values', async () => {
    const { b, fast } = both();
    const child = fast.labels('openai', '200');
    b.resetMetrics();
    child.observe(0.002);
    expect(await b.metrics()).toContain('gateway_x_seconds_count{provider="openai",status="200"} 1');
    expect(() => fast.labels('openai')).toThrow(/expected 2 label values/);
    expect(() => child.observe(Number.NaN)).toThrow(TypeError);
  });
});
