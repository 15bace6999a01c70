import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type * as Parquet from '@dsnp/parquetjs';
import type { stringify as Stringify } from 'csv-stringify/sync';
import { project, type Column } from './columns';

export type Format = 'csv' | 'jsonl' | 'parquet';
export const FORMATS = ['csv', 'jsonl', 'parquet'] as const;
export const CONTENT_TYPES: Record<Format, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson',
  parquet: 'application/vnd.apache.parquet',
};

type Row = Record<string, unknown>;

/** Writes rows of one part (or of the final Parquet file) to a stream. */
export interface RowWriter {
  write(rows: Row[]): Promise<void>;
  close(): Promise<void>;
}

/** Writes text, waiting for the stream to drain when its buffer is full (memory stays flat). */
export async function writeText(stream: Writable, text: string) {
  if (!stream.write(text)) await once(stream, 'drain');
}
async function end(stream: Writable) {
  stream.end();
  if (!stream.writableFinished) await once(stream, 'finish');
}

/** A CSV cell: JSON columns as JSON text, null as an empty cell; csv-stringify quotes as RFC 4180 asks. */
const cell = (v: unknown) =>
  v === null || v === undefined
    ? ''
    : typeof v === 'object'
      ? JSON.stringify(v)
      : typeof v === 'boolean'
        ? String(v)
        : v;
export const csvHeader = (columns: Column[]) => csv().stringify([columns.map((c) => c.name)]);

const PARQUET_TYPES = {
  string: 'UTF8',
  time: 'UTF8',
  int: 'INT64',
  float: 'DOUBLE',
  bool: 'BOOLEAN',
  json: 'JSON',
} as const;
/** csv-stringify, loaded on first use (the api imports this module for its formats only). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
const csv = () => require('csv-stringify/sync') as { stringify: typeof Stringify };
/** parquetjs, loaded on first use: ~15 MB that CSV and JSON Lines exports never need. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
const parquet = () => require('@dsnp/parquetjs') as typeof Parquet;

const parquetSchema = (columns: Column[]) =>
  new (parquet().ParquetSchema)(
    Object.fromEntries(
      columns.map((c) => [c.name, { type: PARQUET_TYPES[c.type], optional: true, compression: 'SNAPPY' }]),
    ) as never,
  );

/**
 * Parquet buffers a row group in memory, and reading one back materialises it: smaller groups with
 * bodies, and small ones in parts (`part: true`), which the final join reads back row group by row group.
 */
const rowGroupSize = (columns: Column[], part: boolean) => (columns.some((c) => c.body) ? 500 : part ? 2_000 : 10_000);

export async function openRowWriter(
  format: Format,
  columns: Column[],
  stream: Writable,
  opts: { part?: boolean } = {},
): Promise<RowWriter> {
  if (format === 'parquet') {
    const w = await parquet().ParquetWriter.openStream(
      parquetSchema(columns),
      stream as never,
      { rowGroupSize: rowGroupSize(columns, opts.part ?? false) } as never,
    );
    return {
      async write(rows) {
        for (const r of rows) {
          const p = project(r, columns);
          // Parquet has no null cell for a required shape: absent keys are nulls.
          for (const k of Object.keys(p)) if (p[k] === null) delete p[k];
          await w.appendRow(p);
        }
      },
      close: () => w.close(),
    };
  }
  const line =
    format === 'csv'
      ? (rows: Row[]) => csv().stringify(rows.map((r) => Object.values(project(r, columns)).map(cell)))
      : (rows: Row[]) => rows.map((r) => `${JSON.stringify(project(r, columns))}\n`).join('');
  return {
    write: async (rows) => (rows.length ? writeText(stream, line(rows)) : undefined),
    close: () => end(stream),
  };
}

/** Rows of a Parquet file, read back row group by row group (the final merge and the tests). */
export async function* readParquet(file: string): AsyncGenerator<Row> {
  const reader = await parquet().ParquetReader.openFile(file);
  try {
    const cursor = reader.getCursor();
    for (let r = (await cursor.next()) as Row | null; r; r = (await cursor.next()) as Row | null) yield r;
  } finally {
    await reader.close();
  }
}
