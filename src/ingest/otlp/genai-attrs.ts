import { withinDepth } from '../storable';

/** Reading OTLP span attributes: counts, strings, JSON-encoded content, indexed `<prefix>.<n>.<field>` lists. */

export const MAX_INT = 2_147_483_647;

function tokenCount(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0) return undefined;
  return Math.min(Math.round(n), MAX_INT);
}

export function firstString(attrs: Record<string, unknown>, keys: string[], max = 256): string | undefined {
  for (const k of keys) {
    const v = attrs[k];
    if (typeof v === 'string' && v.length > 0) return v.slice(0, max);
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

export function firstCount(attrs: Record<string, unknown>, keys: string[]): number | undefined {
  for (const k of keys) {
    const n = tokenCount(attrs[k]);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** Content attributes are often JSON serialized into a string attribute. */
export function maybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      // Too deep to store (see storable.ts): kept as the string it came as.
      const parsed: unknown = JSON.parse(v);
      return withinDepth(parsed) ? parsed : v;
    } catch {
      return v;
    }
  }
  return v;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const parts = path.split('.');
  let cur = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i]!;
    const next = cur[p];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** `gen_ai.prompt.0.role=user, gen_ai.prompt.0.content=hi` → `[{role:'user', content:'hi'}]`. */
function indexed(attrs: Record<string, unknown>, prefix: string, consumed: Set<string>): unknown[] | undefined {
  const items: Record<string, unknown>[] = [];
  const head = `${prefix}.`;
  for (const [k, v] of Object.entries(attrs)) {
    if (!k.startsWith(head)) continue;
    const m = /^(\d+)\.(.+)$/.exec(k.slice(head.length));
    if (!m) continue;
    const n = Number(m[1]);
    if (n > 10_000) continue;
    items[n] ??= {};
    setPath(items[n]!, m[2]!, maybeJson(v));
    consumed.add(k);
  }
  if (items.length === 0) return undefined;
  return items.filter((x) => x !== undefined);
}

export function contentFrom(
  attrs: Record<string, unknown>,
  keys: string[],
  prefixes: string[],
  consumed: Set<string>,
  hasIndexed: boolean,
): unknown {
  for (const k of keys) {
    const v = attrs[k];
    if (v !== undefined && v !== null && v !== '') {
      consumed.add(k);
      return maybeJson(v);
    }
  }
  if (!hasIndexed) return undefined;
  for (const p of prefixes) {
    const list = indexed(attrs, p, consumed);
    if (list) return list;
  }
  return undefined;
}

export function mapValues(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = maybeJson(v);
  return out;
}
