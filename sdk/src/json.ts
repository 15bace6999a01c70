/**
 * JSON serialization that cannot throw: caller values may hold BigInts or cycles, and a
 * tracing SDK must never turn those into an exception in the caller's code path.
 */
export function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    // Only BigInt and cycles make JSON.stringify throw (besides a throwing toJSON/getter);
    // the slower tolerant pass handles the first two and gives up on the last.
    try {
      return JSON.stringify(value, tolerantReplacer());
    } catch {
      return JSON.stringify('[Unserializable]');
    }
  }
}

/**
 * Replaces BigInts with strings and back-references with "[Circular]". It tracks the
 * ancestor path (not every object seen), so an object shared by two siblings is kept.
 */
function tolerantReplacer() {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown): unknown {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value !== 'object' || value === null) return value;
    // `this` is the holder of `value`: unwind the path back to it.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(value)) return '[Circular]';
    ancestors.push(value);
    return value;
  };
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
