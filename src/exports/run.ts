import type { Knex } from 'knex';
import type { Logger } from '../logger';
import type { Column } from './columns';
import * as q from './queries';
import { resourceOf } from './resources';
import type { ExportStore } from './storage';
import { csvHeader, openRowWriter, readParquet, writeText, type Format } from './writers';

/**
 * The work of an export workflow (workflows/export.ts), free of Temporal: the activities wrap it.
 * The file is written in parts of at most EXPORT_PART_ROWS rows, each a separate object rewritten whole
 * when its activity is retried, so a worker killed mid-part neither duplicates nor loses a row.
 * Every write of the row is conditional on the export still running (q.transition): once it reads
 * cancelled (or is deleted) its progress, parts and files do not change, and what a part or the
 * join had written meanwhile is removed.
 */
export interface ExportRunDeps {
  db: Knex;
  store: ExportStore;
  logger: Logger;
  ttlHours: number;
  /** EXPORT_PART_ROWS: rows per part. */
  partRows: number;
}
const PAGE_ROWS = 1_000;
const PAGE_ROWS_WITH_BODIES = 100;
const COUNT_TIMEOUT_MS = 10_000;

const partKey = (id: string, part: number) => `${id}/part-${String(part).padStart(5, '0')}`;
export const fileKey = (id: string, format: Format) => `${id}/export.${format}`;

/** The export can no longer go on (cancelled, deleted, its dataset gone): retrying cannot help. */
export class ExportStopped extends Error {}

const columnsOf = (row: q.ExportRow): Column[] => {
  const all = resourceOf(row.resource).columns;
  return row.columns.map((n) => all.find((c) => c.name === n)!).filter(Boolean);
};

async function load(db: Knex, id: string) {
  const row = await q.exportById(db, id);
  if (!row) throw new ExportStopped(`export ${id} does not exist`);
  return row;
}

/** Marks the export running and records the estimated total (null when counting takes too long). */
export async function prepare(deps: ExportRunDeps, id: string): Promise<{ proceed: boolean }> {
  const row = await load(deps.db, id);
  if (
    !(await q.transition(deps.db, id, ['pending', 'running'], {
      status: 'running',
      started_at: row.started_at ?? deps.db.fn.now(),
    }))
  )
    return { proceed: false };
  const resource = resourceOf(row.resource);
  if (resource.count && row.estimated_total === null) {
    const total = await deps.db
      .transaction(async (trx) => {
        await trx.raw(`set local statement_timeout = ${COUNT_TIMEOUT_MS}`);
        return resource.count!(trx, row.project_ids, row.filter);
      })
      .catch((err) => (deps.logger.info({ err, exportId: id }, 'export count skipped'), null));
    if (total !== null) await q.transition(deps.db, id, ['running'], { estimated_total: total });
  }
  return { proceed: true };
}

/**
 * Writes part `part`: rows from `cursor` on, page by page, until `partRows` or the end. `onPage`
 * heartbeats (and throws when the export is cancelled). Progress is absolute (`rowsBefore` + this
 * part), so a retried part sets it again rather than adding twice.
 */
export async function writePart(
  deps: ExportRunDeps,
  id: string,
  part: number,
  cursor: string | null,
  rowsBefore: number,
  onPage: (rows: number) => void,
): Promise<{ cursor: string | null; rows: number }> {
  const row = await load(deps.db, id);
  if (row.status !== 'running') throw new ExportStopped(`export ${id} is ${row.status}`);
  const resource = resourceOf(row.resource);
  const columns = columnsOf(row);
  const pageSize = row.include_bodies ? PAGE_ROWS_WITH_BODIES : PAGE_ROWS;
  const { stream, done } = await deps.store.write(partKey(id, part));
  const writer = await openRowWriter(row.format as Format, columns, stream, { part: true });
  let rows = 0;
  let next = cursor;
  try {
    do {
      const page = await resource.page(deps.db, row.project_ids, row.filter, next, pageSize, row.include_bodies);
      await writer.write(page.data);
      rows += page.data.length;
      next = page.next_cursor;
      onPage(rows);
      if (!(await q.transition(deps.db, id, ['running'], { rows_written: rowsBefore + rows })))
        throw new ExportStopped(`export ${id} stopped`);
    } while (next && rows < deps.partRows);
    await writer.close();
    await done;
  } catch (err) {
    stream.destroy();
    await discard(deps, id).catch(() => undefined); // stopped meanwhile: no file of it stays; the error says why
    throw err;
  }
  // The part may have landed after a cancel removed the export's files: then it goes too.
  if (!(await q.transition(deps.db, id, ['running'], { parts: part + 1, rows_written: rowsBefore + rows }))) {
    await discard(deps, id);
    throw new ExportStopped(`export ${id} stopped`);
  }
  return { cursor: next, rows };
}

/**
 * Joins the parts into the export's file (CSV: the header, then the parts; JSONL: the parts;
 * Parquet: the parts' rows rewritten into one file), marks it completed with its expiry and
 * removes the parts. Safe to repeat.
 */
export async function finalize(deps: ExportRunDeps, id: string, parts: number, onProgress: () => void): Promise<void> {
  const row = await load(deps.db, id);
  if (row.status === 'completed') return removeParts(deps, id, parts); // a retry after the transition
  if (row.status !== 'running') throw new ExportStopped(`export ${id} is ${row.status}`);
  const format = row.format as Format;
  const key = fileKey(id, format);
  const { stream, done } = await deps.store.write(key);
  try {
    if (format === 'parquet') {
      const writer = await openRowWriter('parquet', columnsOf(row), stream);
      for (let i = 0; i < parts; i++) {
        const local = await deps.store.localCopy(partKey(id, i));
        try {
          let batch: Record<string, unknown>[] = [];
          for await (const r of readParquet(local.path)) {
            batch.push(r);
            if (batch.length === 1000) {
              await writer.write(batch);
              batch = [];
              onProgress();
            }
          }
          await writer.write(batch);
        } finally {
          await local.release();
        }
      }
      await writer.close();
    } else {
      if (format === 'csv') await writeText(stream, csvHeader(columnsOf(row)));
      for (let i = 0; i < parts; i++) {
        const part = await deps.store.read(partKey(id, i));
        if (!part) throw new Error(`export ${id}: part ${i} is missing`);
        for await (const chunk of part) await writeText(stream, chunk as never);
        onProgress();
      }
      stream.end();
    }
    await done;
  } catch (err) {
    stream.destroy();
    throw err;
  }
  const bytes = await deps.store.size(key);
  const completed = await q.transition(deps.db, id, ['running'], {
    status: 'completed',
    storage_key: key,
    bytes,
    finished_at: deps.db.fn.now(),
    expires_at: deps.db.raw(`now() + make_interval(hours => ?)`, [deps.ttlHours]),
  });
  if (!completed) {
    // Cancelled (or deleted) while joining: the file must not outlive it.
    await discard(deps, id);
    throw new ExportStopped(`export ${id} stopped`);
  }
  await removeParts(deps, id, parts);
}

async function removeParts(deps: ExportRunDeps, id: string, parts: number) {
  for (let i = 0; i < parts; i++) await deps.store.remove(partKey(id, i));
}

/** Removes the files of an export that is cancelled, failed or gone (never a completed one's). */
async function discard(deps: ExportRunDeps, id: string) {
  const row = await q.exportById(deps.db, id);
  if (!row || row.status === 'cancelled' || row.status === 'failed') await deps.store.deletePrefix(id);
}

/**
 * A failed or cancelled export: the state recorded (a cancel recorded first stays), then its files
 * removed. In that order: a part landing meanwhile finds the export stopped and removes itself, and
 * a cancel arriving after the export completed leaves its file.
 */
export async function end(deps: ExportRunDeps, id: string, status: 'failed' | 'cancelled', error?: string) {
  await q.transition(deps.db, id, ['pending', 'running'], {
    status,
    error: error?.slice(0, 1000) ?? null,
    finished_at: deps.db.fn.now(),
  });
  await discard(deps, id);
}

/** The cleanup schedule: deletes the files of exports past their expiry; their rows stay as `expired`. */
export async function sweepExpired(deps: ExportRunDeps, now: Date): Promise<number> {
  let n = 0;
  for (
    let batch = await q.expiredExports(deps.db, now, 100);
    batch.length;
    batch = await q.expiredExports(deps.db, now, 100)
  ) {
    for (const { id } of batch) {
      await deps.store.deletePrefix(id);
      await q.setExport(deps.db, id, { status: 'expired', storage_key: null });
      n++;
    }
  }
  if (n) deps.logger.info({ expired: n }, 'export files deleted');
  return n;
}
