import { createHash } from 'node:crypto';
import type Ajv from 'ajv';
import type { Knex } from 'knex';
import { EvaluationError, evaluateLocal, type Outcome } from '../evaluators/evaluate';
import { runJudge, type JudgeDeps } from '../evaluators/judge';
import { configOf } from '../evaluators/service';
import { findEvaluators } from '../evaluators/queries';
import { loadTarget } from '../evaluators/targets';
import { writeEvalScore } from '../scores/service';
import * as q from './queries';
import type { RunTarget } from './schemas';

/**
 * The work of an eval run's activities (workflows/eval-run.ts): list the targets once, then
 * evaluate one target with every evaluator of the run. A score's id is derived from (run,
 * evaluator, target), so an activity retried after a crash writes the same score again, never a
 * second one.
 */
export interface EvalDeps extends JudgeDeps {
  ajv: Ajv;
}

export function scoreIdOf(runId: string, evaluatorId: string, targetId: string): string {
  const h = createHash('sha256').update(`${runId}\0${evaluatorId}\0${targetId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Lists the targets and records the items (idempotent); the run is running from here. */
export async function prepareRun(db: Knex, runId: string): Promise<{ total: number }> {
  const run = await q.runById(db, runId);
  if (!run) throw new Error(`eval run ${runId} not found`);
  const targets = await q.targetIds(db, run.project_id, run.target as RunTarget);
  await q.insertItems(db, runId, run.evaluator_ids, targets);
  const total = targets.length * run.evaluator_ids.length;
  await q.setRun(db, runId, { status: 'running', total, started_at: run.started_at ?? db.fn.now() });
  return { total };
}

export const nextTargets = (db: Knex, runId: string, after: string | null, limit: number) => q.pendingTargets(db, runId, after, limit);

/**
 * Evaluates one target with each of the run's evaluators whose item is not finished. An
 * evaluation that cannot succeed marks its item `error` and the others go on; a transient failure
 * (a judge's 429 or 5xx) marks it `delayed` and throws, so the activity's retry policy backs off.
 */
export async function evaluateTarget(deps: EvalDeps, runId: string, targetId: string): Promise<{ completed: number; errors: number }> {
  const { db } = deps;
  const run = await q.runById(db, runId);
  if (!run || run.status === 'cancelled') return { completed: 0, errors: 0 };
  const items = (await q.itemsOf(db, runId, targetId)).filter((i) => i.status === 'pending' || i.status === 'delayed');
  const evaluators = new Map((await findEvaluators(db, run.project_id, items.map((i) => i.evaluator_id))).map((e) => [e.id as string, e]));
  const kind = (run.target as RunTarget).kind === 'requests' ? 'request' : 'trace';
  const target = await loadTarget(db, kind, run.project_id, targetId);
  let completed = 0;
  let errors = 0;
  let transient: Error | null = null;
  for (const item of items) {
    const e = evaluators.get(item.evaluator_id);
    const fail = async (message: string) => (errors++, q.setItem(db, runId, item.evaluator_id, targetId, { status: 'error', error: message.slice(0, 2000) }));
    if (!e) await fail('the evaluator was deleted');
    else if (!target) await fail(`the ${kind} is gone`);
    else {
      try {
        const cfg = configOf(e);
        const out: Outcome = cfg.type === 'llm_judge' ? await runJudge(deps, cfg.config, target, { 'eval.evaluator': e.id, 'eval.run': runId }) : evaluateLocal(cfg, target, deps.ajv);
        const scoreId = scoreIdOf(runId, e.id, targetId);
        await writeEvalScore(db, { id: scoreId, orgId: run.org_id, projectId: run.project_id, name: e.name, configId: e.score_config_id, target: { kind, id: targetId }, outcome: out });
        await q.setItem(db, runId, e.id, targetId, {
          status: 'completed', score_id: scoreId, value: out.value ?? null, string_value: out.string_value ?? null, error: null,
          judge_cost_usd: out.judge?.costUsd ?? null, judge_request_id: out.judge?.requestId ?? null,
        });
        completed++;
      } catch (err) {
        if (err instanceof EvaluationError || (err as { status?: number }).status === 400) await fail((err as Error).message);
        else {
          transient = err as Error;
          await q.setItem(db, runId, e.id, targetId, { status: 'delayed', error: (err as Error).message.slice(0, 2000) });
        }
      }
    }
  }
  if (transient) throw transient;
  return { completed, errors };
}

/** Items still unfinished when the activity gave up for good become errors. */
export async function failTarget(db: Knex, runId: string, targetId: string, message: string): Promise<void> {
  await db('eval_run_items').where({ run_id: runId, target_id: targetId }).whereIn('status', ['pending', 'delayed']).update({ status: 'error', error: message.slice(0, 2000), updated_at: db.fn.now() });
}

export async function finishRun(db: Knex, runId: string, status: 'completed' | 'cancelled' | 'failed', error?: string): Promise<void> {
  await db('eval_runs').where({ id: runId }).whereNotIn('status', ['completed', 'cancelled', 'failed']).update({ status, error: error ?? null, finished_at: db.fn.now() });
}
