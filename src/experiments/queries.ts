import type { Knex } from 'knex';
import type { ExperimentView } from './schemas';
import type { ShapeRow } from './intervals';

/** An experiments row as pg returns it (subject is jsonb). */
export interface ExperimentRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  dataset_id: string;
  dataset_version: Date;
  subject: Record<string, unknown>;
  evaluator_ids: string[];
  repetitions: number;
  status: ExperimentView['status'];
  workflow_id: string | null;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  finished_at: Date | null;
}
/** An experiment_items row: one run of a dataset item (numeric cost_usd parses as a number, src/db/knex.ts). */
export interface ItemRunRecord {
  experiment_id: string;
  item_id: string;
  repetition: number;
  status: 'pending' | 'completed' | 'error';
  output: unknown;
  request_id: string | null;
  trace_id: string | null;
  latency_ms: number | null;
  cost_usd: number | null;
  error: string | null;
  updated_at: Date;
}
const experiments = (db: Knex) => db<ExperimentRecord>('experiments');

/** SQL of experiments and their item runs. */
export const findExperiment = (db: Knex, projectIds: string[], id: string) =>
  experiments(db).whereIn('project_id', projectIds).andWhere({ id }).first();
export const experimentById = (db: Knex, id: string) => experiments(db).where({ id }).first();

/** The newest experiments of these projects (of one dataset when given). */
export function listExperimentRows(
  db: Knex,
  projectIds: string[],
  f: { dataset_id?: string | undefined; limit: number },
) {
  const rows = experiments(db)
    .whereIn('project_id', projectIds)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit);
  if (f.dataset_id) rows.andWhere({ dataset_id: f.dataset_id });
  return rows;
}

/** Pending item runs after `after` (a `<item_id>#<repetition>` key), in key order. */
export async function pendingItems(db: Knex, id: string, after: string | null, limit: number) {
  const q = db('experiment_items')
    .where({ experiment_id: id, status: 'pending' })
    .select('item_id', 'repetition', db.raw(`item_id || '#' || lpad(repetition::text, 2, '0') as key`));
  if (after) q.andWhereRaw(`item_id || '#' || lpad(repetition::text, 2, '0') > ?`, [after]);
  return (await q.orderByRaw('3').limit(limit)) as { item_id: string; repetition: number; key: string }[];
}

/**
 * Runs `write` in a transaction holding the experiment's row FOR SHARE, unless it is no longer
 * running or awaiting outputs (then nothing is written: false). Cancelling updates that row
 * (finishExperiment), so it waits for the writes in flight and every later write finds it
 * cancelled: once an experiment reads cancelled, its item runs and scores stay as they are.
 */
export function whileOpen(db: Knex, id: string, write: (trx: Knex.Transaction) => Promise<unknown>): Promise<boolean> {
  return db.transaction(async (trx) => {
    const exp = await trx('experiments').where({ id }).forShare().first('status');
    if (!exp || !['running', 'awaiting_outputs'].includes(exp.status)) return false;
    await write(trx);
    return true;
  });
}

export const failItem = (db: Knex, id: string, itemId: string, repetition: number, error: string) =>
  whileOpen(db, id, (trx) =>
    trx('experiment_items')
      .where({ experiment_id: id, item_id: itemId, repetition, status: 'pending' })
      .update({ status: 'error', error: error.slice(0, 2000), updated_at: trx.fn.now() }),
  );

export const finishExperiment = async (
  db: Knex,
  id: string,
  status: 'completed' | 'cancelled' | 'failed',
  error?: string,
) =>
  (await db('experiments')
    .where({ id })
    .whereIn('status', ['running', 'awaiting_outputs'])
    .update({ status, finished_at: db.fn.now(), ...(error ? { error } : {}) })) > 0;

/** Counts, cost and latency percentiles of an experiment's item runs, and the mean of each score name. */
export async function experimentStats(db: Knex, id: string) {
  const [counts, agg, scores] = await Promise.all([
    db('experiment_items').where({ experiment_id: id }).select('status').count('* as n').groupBy('status'),
    db('experiment_items')
      .where({ experiment_id: id })
      .select(
        db.raw('coalesce(sum(cost_usd), 0)::float8 as cost'),
        db.raw('percentile_cont(0.5) within group (order by latency_ms) as p50'),
        db.raw('percentile_cont(0.95) within group (order by latency_ms) as p95'),
      )
      .first(),
    db('scores')
      .where({ experiment_id: id })
      .select('name')
      .avg('value as mean')
      .count('* as n')
      .groupBy('name')
      .orderBy('name'),
  ]);
  return {
    counts: counts as { status: string; n: string }[],
    agg: agg as { cost: number; p50: number | null; p95: number | null },
    scores: scores as { name: string; mean: string | null; n: string }[],
  };
}

export function listItemRuns(
  db: Knex,
  id: string,
  f: { status?: string | undefined; after: [string, number] | null; limit: number },
) {
  const q = db<ItemRunRecord>('experiment_items').where({ experiment_id: id });
  if (f.status) q.andWhere('status', f.status);
  if (f.after) q.andWhereRaw('(item_id, repetition) > (?, ?)', f.after);
  return q.orderBy([{ column: 'item_id' }, { column: 'repetition' }]).limit(f.limit + 1);
}

/** Every item run of an experiment, by item and repetition. */
export const itemRunsOf = (db: Knex, id: string) =>
  db<ItemRunRecord>('experiment_items')
    .where({ experiment_id: id })
    .orderBy([{ column: 'item_id' }, { column: 'repetition' }]);

/** Score values of item runs: `<item>#<repetition>` → name → value. */
export async function itemScores(db: Knex, id: string, itemIds?: string[]) {
  const q = db('scores')
    .where({ experiment_id: id })
    .select('experiment_item_id', 'experiment_repetition', 'name', 'value');
  if (itemIds) q.whereIn('experiment_item_id', itemIds);
  const out = new Map<string, Record<string, number | null>>();
  for (const s of await q) {
    const k = `${s.experiment_item_id}#${s.experiment_repetition}`;
    out.set(k, { ...(out.get(k) ?? {}), [s.name]: s.value === null ? null : Number(s.value) });
  }
  return out;
}

/** Per score name of an experiment, each data type and config its valued scores have, with the config's bounds. */
export const scoreShapeRows = async (db: Knex, id: string): Promise<ShapeRow[]> =>
  db('scores as s')
    .leftJoin('score_configs as c', 'c.id', 's.config_id')
    .where('s.experiment_id', id)
    .whereNotNull('s.value')
    .distinct('s.name', 's.data_type', 'c.id', 'c.min', 'c.max', 'c.categories');
