/**
 * Head sampling: one decision per trace, taken when the trace starts. Sampled-out traces
 * are still recorded locally (see buffer.ts) so that error traces can be kept.
 */
export class Sampler {
  readonly rate: number;
  private readonly random: () => number;

  constructor(rate: number, random: () => number = Math.random) {
    this.rate = validateSampleRate(rate);
    this.random = random;
  }

  /** True when the trace is sampled in (sent as it happens). */
  sample(): boolean {
    // The edges never consult the random source, so 0 and 1 are exact.
    if (this.rate >= 1) return true;
    if (this.rate <= 0) return false;
    return this.random() < this.rate;
  }
}

export function validateSampleRate(rate: unknown): number {
  if (typeof rate !== 'number' || Number.isNaN(rate)) {
    throw new TypeError(`sampleRate must be a number in [0, 1], got ${String(rate)}`);
  }
  if (rate < 0 || rate > 1) throw new RangeError(`sampleRate must be in [0, 1], got ${rate}`);
  return rate;
}

/**
 * A small seeded PRNG (mulberry32) for reproducible sampling in tests. Not for anything
 * security related.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
