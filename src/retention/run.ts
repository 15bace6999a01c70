import type { Knex } from 'knex';
import type { Logger } from '../logger';
import {
  createPartition,
  deleteOlderThan,
  dropPartition,
  emptyBodies,
  getMark,
  listPartitions,
  organizations,
  setMark,
} from './queries';

/**
 * The daily upkeep of the request log (the `retention` Temporal Schedule; docs/retention.md):
 * 1. creates the monthly partitions of this month and the next MONTHS_AHEAD (moving rows a
 *    skewed clock left in the default partition into their month);
 * 2. with RETENTION_DAYS, drops every monthly partition wholly older than the cutoff (never one
 *    holding a younger row), deletes older rows of the default partition, and the hourly and
 *    daily rollups of the months dropped;
 * 3. with BODY_RETENTION_DAYS, empties the bodies of rows older than that cutoff, from where
 *    the last run stopped, in bounded batches.
 */
const MONTHS_AHEAD = 3;
const DAY = 86_400_000;
const BODY_BATCH = 5_000;
/** Rows emptied per run at most; a backlog continues the next day. */
const BODY_MAX_PER_RUN = 2_000_000;

export interface RetentionSettings {
  retentionDays?: number | undefined;
  bodyRetentionDays?: number | undefined;
}
export interface RetentionResult {
  created: string[];
  dropped: string[];
  deleted: { rows: number; rollups: number; userDays: number } | null;
  bodiesEmptied: number;
}

const monthStart = (ms: number, add = 0) => {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1));
};

export async function runRetention(
  db: Knex,
  settings: RetentionSettings,
  nowMs: number,
  logger?: Logger,
): Promise<RetentionResult> {
  const out: RetentionResult = { created: [], dropped: [], deleted: null, bodiesEmptied: 0 };
  for (let i = 0; i <= MONTHS_AHEAD; i++) {
    const m = monthStart(nowMs, i);
    if (await createPartition(db, m)) out.created.push(m.toISOString().slice(0, 7));
  }
  if (settings.retentionDays !== undefined) {
    const cutoff = new Date(nowMs - settings.retentionDays * DAY).toISOString();
    for (const p of await listPartitions(db)) {
      if (p.to && p.to.toISOString() <= cutoff) {
        await dropPartition(db, p.name);
        out.dropped.push(p.name);
      }
    }
    // Rollups go with the months dropped (up to the oldest month kept), so rollups and raw rows
    // keep answering alike; the default partition's rows go by the cutoff itself.
    const kept = (await listPartitions(db))
      .filter((p) => p.from)
      .map((p) => p.from!.toISOString())
      .sort();
    const rollupCutoff = kept[0] && kept[0] < cutoff ? kept[0] : cutoff;
    out.deleted = await deleteOlderThan(db, cutoff, rollupCutoff);
  }
  if (settings.bodyRetentionDays !== undefined)
    out.bodiesEmptied = await emptyOldBodies(db, new Date(nowMs - settings.bodyRetentionDays * DAY).toISOString());
  logger?.info({ ...out }, 'retention run');
  return out;
}

/** Empties bodies in [mark, cutoff) organization by organization; the mark moves to the cutoff when done. */
async function emptyOldBodies(db: Knex, cutoff: string): Promise<number> {
  const from = (await getMark(db, 'bodies')) ?? '-infinity';
  if (from >= cutoff && from !== '-infinity') return 0;
  let total = 0;
  for (const orgId of await organizations(db)) {
    for (let n = BODY_BATCH; n === BODY_BATCH; total += n) {
      if (total >= BODY_MAX_PER_RUN) return total; // the mark stays: the next run goes on
      n = await emptyBodies(db, orgId, from, cutoff, BODY_BATCH);
    }
  }
  await setMark(db, 'bodies', cutoff);
  return total;
}
