import { HttpError } from '../http/errors';
import { hasUnstorableText, storableText } from '../http/text';

/**
 * Ingest keeps what it is given where it can: text PostgreSQL cannot store (NUL, lone UTF-16
 * surrogates) is cleaned with `storableText` semantics instead of failing the operation. Only
 * nesting deeper than MAX_INGEST_DEPTH is refused: serialising such a value (JSON.stringify is
 * recursive) would overflow the stack, and no trace payload needs it (docs/ingest.md).
 */
const MAX_INGEST_DEPTH = 100;

interface Shape {
  tooDeep: boolean;
  dirty: boolean;
}

/** One iterative walk: is the value nested deeper than `max` containers, and does it hold unstorable text? */
function inspect(value: unknown, max: number): Shape {
  const stack: [unknown, number][] = [[value, 0]];
  let dirty = false;
  while (stack.length) {
    const [v, level] = stack.pop()!;
    if (typeof v === 'string') {
      dirty ||= hasUnstorableText(v);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (level >= max) return { tooDeep: true, dirty };
    if (Array.isArray(v)) {
      for (const x of v) stack.push([x, level + 1]);
    } else {
      for (const [k, x] of Object.entries(v)) {
        dirty ||= hasUnstorableText(k);
        stack.push([x, level + 1]);
      }
    }
  }
  return { tooDeep: false, dirty };
}

/** A cleaned copy; recursion is bounded by the depth check that ran first. */
function clean(v: unknown): unknown {
  if (typeof v === 'string') return storableText(v);
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clean);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[storableText(k)] = clean(x);
  return out;
}

/** True when `v` nests at most `max` containers (a string of JSON parsed from OTLP, say). */
export const withinDepth = (v: unknown, max = MAX_INGEST_DEPTH) => !inspect(v, max).tooDeep;

/**
 * The body of one ingest operation, ready for validation: 400 `too_deep` naming the field when a
 * value nests deeper than MAX_INGEST_DEPTH, text cleaned where needed (the body is left as is when clean).
 */
export function storableBody(body: Record<string, unknown>, where: string): Record<string, unknown> {
  let dirty = false;
  for (const [k, v] of Object.entries(body)) {
    const shape = inspect(v, MAX_INGEST_DEPTH);
    if (shape.tooDeep) {
      throw new HttpError(400, 'too_deep', `${where}.${k} is nested deeper than ${MAX_INGEST_DEPTH} levels`, {
        field: `${where}.${k}`,
        max_depth: MAX_INGEST_DEPTH,
      });
    }
    dirty ||= shape.dirty || hasUnstorableText(k);
  }
  return dirty ? (clean(body) as Record<string, unknown>) : body;
}
