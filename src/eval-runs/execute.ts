import { createHash } from 'node:crypto';
import type Ajv from 'ajv';
import type { Knex } from 'knex';
import { EvaluationError, evaluateLocal, type Outcome } from '../evaluators/evaluate';
import { judgeOf, runJudge, type JudgeCall, type JudgeDeps } from '../evaluators/judge';
import { configOf } from '../evaluators/service';
import { findEvaluators } from '../evaluators/service';
import { loadTarget } from '../evaluators/targets';
import { writeEvalScore } from '../scores/service';
import * as q from './queries';

/**
 * The work of an eval run's activities (workflows/eval-run.ts): list the targets once, then
 * evaluate one target with every evaluator of the run. A score's id is derived from (run,
 * evaluator, target), so an activity retried after a crash writes the same score again, never a
 * second one.
 */
export interface EvalDeps extends JudgeDeps {
  ajv: Ajv;
  /** The activity's cancellation: once aborted, no new evaluation starts (it throws the reason). */
  signal?: AbortSignal;
}

export function scoreIdOf(runId: string, evaluatorId: string, targetId: string): string {
  const h = createHash('sha256').update(`${runId}\0${evaluatorId}\0${targetId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Lists the targets and records the items (idempotent); the run is running from here, unless it was cancelled
 * meanwhile.
 */
export async function prepareRun(db: Knex, runId: string): Promise<{ total: number }> {
  const run = await q.runById(db, runId);
  if (!run) throw new Error(`eval run ${runId} not found`);
  const targets = await q.targetIds(db, run.project_id, run.target);
  const total = targets.length * run.evaluator_ids.length;
  // The run's row is updated first: a cancel either lands before (no items) or waits for both.
  await db.transaction(async (trx) => {
    if (await q.setOpenRun(trx, runId, { status: 'running', total, started_at: run.started_at ?? db.fn.now() }))
      await q.insertItems(trx, runId, run.evaluator_ids, targets);
  });
  return { total };
}

export const nextTargets = (db: Knex, runId: string, after: string | null, limit: number) =>
  q.pendingTargets(db, runId, after, limit);

const judgeColumns = (j: JudgeCall | undefined) => ({
  judge_cost_usd: j?.costUsd ?? null,
  judge_request_id: j?.requestId ?? null,
});

/**
 * Evaluates one target with each of the run's evaluators whose item is not finished. An
 * evaluation that cannot succeed marks its item `error` and the others go on; a transient failure
 * (a judge's 429 or 5xx) marks it `delayed` and throws, so the activity's retry policy backs off.
 * A judge call is spend whatever came of it: its cost stays on the item. Every write is made only
 * while the run is open (q.whileOpen): a run cancelled meanwhile drops the result and the rest.
 */
export async function evaluateTarget(
  deps: EvalDeps,
  runId: string,
  targetId: string,
): Promise<{ completed: number; errors: number }> {
  const { db } = deps;
  const run = await q.runById(db, runId);
  if (!run || q.isClosed(run.status)) return { completed: 0, errors: 0 };
  const items = (await q.itemsOf(db, runId, targetId)).filter((i) => i.status === 'pending' || i.status === 'delayed');
  const evaluators = new Map(
    (
      await findEvaluators(
        db,
        run.project_id,
        items.map((i) => i.evaluator_id),
      )
    ).map((e) => [e.id, e]),
  );
  const kind = run.target.kind === 'requests' ? 'request' : 'trace';
  const target = await loadTarget(db, kind, run.project_id, targetId);
  let completed = 0;
  let errors = 0;
  let transient: Error | null = null;
  for (const item of items) {
    deps.signal?.throwIfAborted(); // the activity was cancelled: no new judge call (and no success reported)
    const e = evaluators.get(item.evaluator_id);
    const setItem = (patch: Record<string, unknown>) =>
      q.whileOpen(db, runId, (trx) => q.setItem(trx, runId, item.evaluator_id, targetId, patch));
    let judge: JudgeCall | undefined;
    try {
      if (!e) throw new EvaluationError('the evaluator was deleted');
      if (!target) throw new EvaluationError(`the ${kind} is gone`);
      const cfg = configOf(e);
      const out: Outcome =
        cfg.type === 'llm_judge'
          ? await runJudge(deps, cfg.config, target, { 'eval.evaluator': e.id, 'eval.run': runId })
          : evaluateLocal(cfg, target, deps.ajv);
      judge = out.judge;
      const scoreId = scoreIdOf(runId, e.id, targetId);
      const written = await q.whileOpen(db, runId, async (trx) => {
        await writeEvalScore(trx, {
          id: scoreId,
          orgId: run.org_id,
          projectId: run.project_id,
          name: e.name,
          configId: e.score_config_id,
          target: { kind, id: targetId },
          outcome: out,
        });
        await q.setItem(trx, runId, e.id, targetId, {
          status: 'completed',
          score_id: scoreId,
          value: out.value ?? null,
          string_value: out.string_value ?? null,
          error: null,
          ...judgeColumns(judge),
        });
      });
      if (!written) break;
      completed++;
    } catch (err) {
      judge ??= judgeOf(err);
      const message = (err as Error).message.slice(0, 2000);
      const final = err instanceof EvaluationError || (err as { status?: number }).status === 400;
      if (!(await setItem({ status: final ? 'error' : 'delayed', error: message, ...judgeColumns(judge) }))) break;
      if (final) errors++;
      else transient = err as Error;
    }
  }
  if (transient) throw transient;
  return { completed, errors };
}

/** Items still unfinished when the activity gave up for good become errors (not in a closed run). */
export async function failTarget(db: Knex, runId: string, targetId: string, message: string): Promise<void> {
  await q.whileOpen(db, runId, (trx) =>
    trx('eval_run_items')
      .where({ run_id: runId, target_id: targetId })
      .whereIn('status', ['pending', 'delayed'])
      .update({ status: 'error', error: message.slice(0, 2000), updated_at: trx.fn.now() }),
  );
}

export async function finishRun(
  db: Knex,
  runId: string,
  status: 'completed' | 'cancelled' | 'failed',
  error?: string,
): Promise<void> {
  await db('eval_runs')
    .where({ id: runId })
    .whereNotIn('status', ['completed', 'cancelled', 'failed'])
    .update({ status, error: error ?? null, finished_at: db.fn.now() });
}
