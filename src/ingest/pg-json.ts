/**
 * JSON for PostgreSQL. jsonb and text reject two things JavaScript strings may hold: U+0000 and lone
 * UTF-16 surrogates (JSON.stringify escapes both as \u0000 / \udXXX). Such values are rare, so the
 * fast path is one stringify and one regex test; only a suspect payload is walked and cleaned.
 */
const SUSPECT = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

export function toPgJson(value: unknown): string {
  const s = JSON.stringify(value);
  if (!SUSPECT.test(s)) return s;
  return JSON.stringify(scrub(value));
}

const wellFormed = (s: string): string =>
  (s as string & { toWellFormed(): string }).toWellFormed().replaceAll('\u0000', '');

function scrub(v: unknown): unknown {
  if (typeof v === 'string') return wellFormed(v);
  if (Array.isArray(v)) return v.map(scrub);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[wellFormed(k)] = scrub(x);
    return out;
  }
  return v;
}
