/** The type of an exported column: how CSV, JSONL and Parquet write it (docs/exports.md). */
type ColType = 'string' | 'int' | 'float' | 'bool' | 'json' | 'time';
export interface Column {
  name: string;
  type: ColType;
  /** Written only with include_bodies (inputs, outputs, request and response bodies). */
  body?: boolean;
}

/** `name:type` specs → columns; `+` marks a body column. */
export const cols = (...specs: string[]): Column[] =>
  specs.map((s) => {
    const [name, type] = s.replace(/^\+/, '').split(':') as [string, ColType | undefined];
    return { name, type: type ?? 'string', ...(s.startsWith('+') ? { body: true } : {}) };
  });

/** A row value as the API's JSON answers it (dates as ISO text, bigint as number). */
function jsonValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return Number(v);
  return v === undefined ? null : v;
}

/** One exported row: the chosen columns, in order, as JSON values. */
export function project(row: Record<string, unknown>, columns: Column[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c.name] = jsonValue(row[c.name]);
  return out;
}
