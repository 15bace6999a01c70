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

const MAX_NANOS = 253402300799999999999; // 9999-12-31T23:59:59.999999999Z

/** Unix nanoseconds as ISO 8601 with microseconds (what timestamptz keeps); null for 0/invalid. */
export function nanosToIso(v: Int64): string | null {
  const nanos = int64ToNumber(v);
  if (!Number.isFinite(nanos) || nanos <= 0 || nanos > MAX_NANOS) return null;
  const micros = Math.floor(nanos / 1000);
  const ms = Math.floor(micros / 1000);
  const us = micros - ms * 1000;
  return `${new Date(ms).toISOString().slice(0, -1)}${String(us).padStart(3, '0')}Z`;
}

export function anyValue(v: AnyValue | null | undefined): unknown {
  if (!v) return null;
  if (v.stringValue !== null && v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== null && v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== null && v.intValue !== undefined) return int64ToNumber(v.intValue);
  if (v.doubleValue !== null && v.doubleValue !== undefined) return Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue);
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
