import type { Knex } from 'knex';
import { notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import type { LlmDeps } from '../llm/call';
import type { Temporal } from '../temporal/client';
import * as q from './queries';
import type { ExperimentView } from './schemas';
import { isoOrNull, isoText } from '../db/convert';

/** What other features read of this one's data (they never import its queries). */
export { itemScores } from './queries';

/**
 * Experiments: a subject run over a dataset version, scored (docs/experiments.md). Their creation,
 * outputs and cancellation are write.ts's; here, their views and item runs.
 */
export interface ExperimentDeps extends LlmDeps {
  temporal: Temporal;
  taskQueue: string;
}

export async function toView(db: Knex, r: q.ExperimentRecord): Promise<ExperimentView> {
  const s = await q.experimentStats(db, r.id);
  const counts = { pending: 0, completed: 0, error: 0 };
  for (const c of s.counts) counts[c.status as keyof typeof counts] = Number(c.n);
  const round = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 1000);
  return {
    id: r.id,
    project_id: r.project_id,
    name: r.name,
    dataset_id: r.dataset_id,
    dataset_version: isoText(r.dataset_version),
    subject: r.subject,
    evaluator_ids: r.evaluator_ids,
    repetitions: r.repetitions,
    status: r.status,
    workflow_id: r.workflow_id ?? null,
    counts,
    scores: s.scores.map((x) => ({
      name: x.name,
      mean: x.mean === null ? null : Math.round(Number(x.mean) * 1e6) / 1e6,
      count: Number(x.n),
    })),
    cost_usd: Math.round(Number(s.agg.cost) * 1e10) / 1e10,
    latency_p50_ms: round(s.agg.p50),
    latency_p95_ms: round(s.agg.p95),
    error: r.error ?? null,
    created_at: isoText(r.created_at),
    finished_at: isoOrNull(r.finished_at),
  };
}

export async function getExperiment(db: Knex, projectIds: string[], id: string) {
  const r = await q.findExperiment(db, projectIds, id);
  if (!r) throw notFound('Experiment');
  return toView(db, r);
}

export async function listExperiments(
  db: Knex,
  projectIds: string[],
  f: { dataset_id?: string | undefined; limit: number },
) {
  return Promise.all((await q.listExperimentRows(db, projectIds, f)).map((r) => toView(db, r)));
}

const cursor = cursorCodec('text', 'int');
export async function listItems(
  db: Knex,
  projectIds: string[],
  id: string,
  p: { status?: string | undefined; limit: number; cursor?: string | undefined },
) {
  if (!(await q.findExperiment(db, projectIds, id))) throw notFound('Experiment');
  const after = p.cursor ? (cursor.decode(p.cursor) as [string, number]) : null;
  const rows = await q.listItemRuns(db, id, { status: p.status, after, limit: p.limit });
  const scores = await q.itemScores(
    db,
    id,
    rows.map((r) => r.item_id),
  );
  return pageOf(
    rows,
    p.limit,
    cursor,
    (r) => [r.item_id, r.repetition],
    (r) => ({
      item_id: r.item_id,
      repetition: r.repetition,
      status: r.status,
      output: r.output ?? null,
      request_id: r.request_id ?? null,
      trace_id: r.trace_id ?? null,
      latency_ms: r.latency_ms === null ? null : Number(r.latency_ms),
      cost_usd: r.cost_usd === null ? null : Number(r.cost_usd),
      error: r.error ?? null,
      scores: scores.get(`${r.item_id}#${r.repetition}`) ?? {},
    }),
  );
}
