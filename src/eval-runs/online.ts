import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { requestWhere } from '../filters/request-filter';
import { requestFilterOf, type StoredFilter } from '../filters/stored';
import { insertItems } from './queries';
import type { OnlineConfig } from '../evaluators/schemas';

/**
 * Online evaluation (the `online-evaluation` schedule, every minute): for each evaluator with
 * `online` set, the requests logged or traces completed since its watermark that match its
 * filter, sampled, become pending items of its rolling run; the workflow then evaluates them like
 * any run's. The window stops LAG_MS before now so batches still being written are not skipped.
 */
const LAG_MS = 30_000;
/** Targets taken per evaluator and tick; the watermark stops at the last one taken. */
const MAX_PER_TICK = 2000;

/** Deterministic sampling: the same target is in or out whatever run looks at it. */
function sampled(evaluatorId: string, targetId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return createHash('sha256').update(`${evaluatorId}\0${targetId}`).digest().readUInt32BE(0) / 2 ** 32 < rate;
}

async function newTargets(
  db: Knex,
  projectId: string,
  o: OnlineConfig,
  from: string,
  until: string,
): Promise<{ id: string; at: string }[]> {
  if (o.kind === 'requests') {
    const w = requestWhere([projectId], { ...requestFilterOf((o.filter ?? {}) as StoredFilter), from, to: until });
    const { rows } = await db.raw(
      `select r.id, r.created_at as at from requests r
        where ${w.sql} and not jsonb_exists(coalesce(r.properties, '{}'::jsonb), 'eval.target')
        order by r.created_at, r.id limit ?`,
      [...w.args, MAX_PER_TICK],
    );
    return rows.map((r: { id: string; at: Date }) => ({ id: r.id, at: r.at.toISOString() }));
  }
  const q = db('traces')
    .where({ project_id: projectId })
    .andWhere('completed_event_at', '>=', from)
    .andWhere('completed_event_at', '<', until);
  if (o.filter?.name) q.andWhere('name', o.filter.name);
  if (o.filter?.user_id) q.andWhere('user_id', o.filter.user_id);
  if (o.filter?.session_id) q.andWhere('session_id', o.filter.session_id);
  const rows = await q
    .orderBy([{ column: 'completed_event_at' }, { column: 'id' }])
    .limit(MAX_PER_TICK)
    .select('id', 'completed_event_at as at');
  return rows.map((r) => ({ id: r.id as string, at: (r.at as Date).toISOString() }));
}

/** Queues the new matching targets of every online evaluator; returns the online runs with work. */
export async function collectOnline(db: Knex, nowMs: number): Promise<string[]> {
  const until = new Date(nowMs - LAG_MS).toISOString();
  const evaluators = await db('evaluators as e')
    .join('eval_runs as r', (j) => j.on(db.raw('r.evaluator_ids[1] = e.id')).andOn(db.raw('r.online')))
    .whereNotNull('e.online')
    .select('e.id', 'e.project_id', 'e.online', 'e.online_watermark', 'r.id as run_id');
  for (const e of evaluators) {
    const from = (e.online_watermark as Date | null)?.toISOString() ?? until;
    if (from >= until) continue;
    const o = e.online as OnlineConfig;
    const found = await newTargets(db, e.project_id, o, from, until);
    await insertItems(
      db,
      e.run_id,
      [e.id],
      found.filter((t) => sampled(e.id, t.id, o.sampling_rate)).map((t) => t.id),
    );
    // A full page stops the watermark at its last target (the rest comes next tick).
    const mark = found.length === MAX_PER_TICK ? found.at(-1)!.at : until;
    await db('evaluators').where({ id: e.id }).update({ online_watermark: mark });
  }
  const pending = await db('eval_run_items as i')
    .join('eval_runs as r', 'r.id', 'i.run_id')
    .where('r.online', true)
    .whereIn('i.status', ['pending', 'delayed'])
    .distinct('r.id');
  return pending.map((r) => r.id as string);
}
