/**
 * URL search params, checked: each page declares its filters in its feature's `search.ts` with
 * these small validators, the router runs them on every URL (a bad or unknown value is dropped,
 * never a crash), and `useSearch` / `<Link search>` are typed from them. Values are plain strings
 * in the URL (`/requests?model=gpt-4o`): see parseSearch in app/router.tsx.
 */
type Field<T> = (raw: unknown) => T | undefined;

/** Any non-empty text. */
export const text = (): Field<string> => (raw) => (typeof raw === 'string' && raw !== '' ? raw : undefined);

/**
 * Text, number or yes/no as text: the URL parser reads `?status=200` as the number 200 and
 * `?cache_hit=true` as a boolean; filters that pass them on to the API want the text back.
 */
export const scalar = (): Field<string> => (raw) =>
  typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : text()(raw);

/** One of a fixed list of values. */
export const oneOf =
  <const T extends readonly string[]>(values: T): Field<T[number]> =>
  (raw) =>
    values.find((v) => v === raw);

type Parsed<S extends Record<string, Field<unknown>>> = { [K in keyof S]?: NonNullable<ReturnType<S[K]>> };

/** A page's search schema: the router's `validateSearch`. */
export function search<S extends Record<string, Field<unknown>>>(shape: S) {
  return (raw: Record<string, unknown>): Parsed<S> => {
    const out: Record<string, unknown> = {};
    for (const [k, field] of Object.entries(shape)) {
      const v = field(raw[k]);
      if (v !== undefined) out[k] = v;
    }
    return out as Parsed<S>;
  };
}

/** A filter patch with empty inputs removed, so the URL carries only what is set. */
export function clean<T extends Record<string, unknown>>(s: T): T {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined && v !== null && v !== '')) as T;
}
