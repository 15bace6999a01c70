import type { AnyValue, Int64, KeyValue } from './decode';

/** 64-bit integers from protobufjs (Long objects), JSON (strings) or plain numbers, as JS numbers. */
export function int64ToNumber(v: Int64): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }
  const low = v.low >>> 0;
  const high = v.unsigned ? v.high >>> 0 : v.high | 0;
  return high * 4294967296 + low;
}

const MAX_MICROS = 253402300799999999; // 9999-12-31T23:59:59.999999Z

/** Unix nanoseconds → whole microseconds, exactly (a double holding nanoseconds is off by up to 256 ns). */
export function nanosToMicros(v: Int64): number {
  if (v === null || v === undefined) return 0;
  try {
    let n: bigint;
    if (typeof v === 'number') n = Number.isFinite(v) ? BigInt(Math.trunc(v)) : -1n;
    else if (typeof v === 'string') n = /^\d{1,20}$/.test(v) ? BigInt(v) : -1n;
    else n = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
    return Number(n / 1000n);
  } catch {
    return -1;
  }
}

/**
 * Unix nanoseconds → ISO 8601 with microseconds (what timestamptz keeps); null for 0/invalid.
 * Spans of one export share their second, so each converter (one per request) reuses the
 * 'YYYY-MM-DDTHH:MM:SS.' prefix of the previous call.
 */
export function isoConverter(): (v: Int64) => string | null {
  let lastSecond = NaN;
  let lastPrefix = '';
  return (v) => {
    const micros = nanosToMicros(v);
    if (!(micros > 0) || micros > MAX_MICROS) return null;
    const second = Math.floor(micros / 1_000_000);
    if (second !== lastSecond) {
      lastPrefix = new Date(second * 1000).toISOString().slice(0, 20);
      lastSecond = second;
    }
    return `${lastPrefix}${String(micros - second * 1_000_000).padStart(6, '0')}Z`;
  };
}

/** One conversion, without a shared prefix cache. */
export const nanosToIso = (v: Int64) => isoConverter()(v);

function anyValue(v: AnyValue | null | undefined): unknown {
  if (!v) return null;
  if (v.stringValue !== null && v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== null && v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== null && v.intValue !== undefined) return int64ToNumber(v.intValue);
  if (v.doubleValue !== null && v.doubleValue !== undefined)
    return Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  if (v.kvlistValue) return attributes(v.kvlistValue.values);
  if (v.bytesValue) return Buffer.from(v.bytesValue).toString('base64');
  return null;
}

export function attributes(list: KeyValue[] | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!list) return out;
  for (const kv of list) {
    if (kv?.key) out[kv.key] = anyValue(kv.value);
  }
  return out;
}

export function bytesToHex(b: Uint8Array | null | undefined): string {
  if (!b || b.length === 0) return '';
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

export const isZero = (b: Uint8Array) => b.every((x) => x === 0);
