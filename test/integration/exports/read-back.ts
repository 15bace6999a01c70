import { parse } from 'csv-parse/sync';
import { readParquet } from '../../../src/exports/writers';

type Row = Record<string, unknown>;

/** An exported file's rows as JSON values, whatever the format (Parquet read back with the writer's library). */
export async function readBack(format: string, bytes: Buffer, file: string): Promise<Row[]> {
  if (format === 'jsonl')
    return bytes
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row);
  if (format === 'csv') return parse(bytes, { columns: true }) as Row[];
  const rows: Row[] = [];
  for await (const r of readParquet(file))
    rows.push(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
  return rows;
}

/**
 * An API row as the format writes it: CSV cells are text (JSON as JSON text, null empty); JSONL and Parquet keep types.
 */
export function asWritten(format: string, row: Row, columns: string[]): Row {
  const out: Row = {};
  for (const c of columns) {
    const v = row[c] ?? null;
    out[c] = format !== 'csv' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}
