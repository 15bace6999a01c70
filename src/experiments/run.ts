import type { Knex } from 'knex';
import { EvaluationError, evaluateLocal, type Outcome } from '../evaluators/evaluate';
import { runJudge } from '../evaluators/judge';
import { findEvaluators } from '../evaluators/queries';
import { configOf } from '../evaluators/service';
import { inputText, type EvalTarget } from '../evaluators/targets';
import type { EvalDeps } from '../eval-runs/execute';
import { scoreIdOf } from '../eval-runs/execute';
import { callModel } from '../llm/call';
import { fillTemplate } from '../prompts/variables';
import { writeEvalScore } from '../scores/service';
import { itemsAt } from '../datasets/queries';

/**
 * One item run of an experiment (the activity of workflows/experiment.ts, and the outputs route
 * for external subjects): produce the output once — a retried activity finds it stored and does
 * not call the model again — then score it with the experiment's evaluators (deterministic score
 * ids, so re-scoring rewrites the same scores).
 */
const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Template variables of a dataset item: the fields of an object input, or `input` for a plain one; plus `expected_output`. */
export function itemVariables(item: { input: unknown; expected_output: unknown }): Record<string, string> {
  const base = item.input && typeof item.input === 'object' && !Array.isArray(item.input) ? Object.fromEntries(Object.entries(item.input).map(([k, v]) => [k, text(v)])) : {};
  return { input: text(item.input), ...base, expected_output: text(item.expected_output) };
}

async function datasetItem(db: Knex, exp: Record<string, any>, itemId: string) {
  const [row] = await itemsAt(db, exp.dataset_id, { version: exp.dataset_version.toISOString(), status: 'all', after: null, limit: 1 }).where('item_id', itemId);
  return row as Record<string, any> | undefined;
}

/** Scores a produced output with every evaluator of the experiment; evaluator failures are noted on the item. */
export async function scoreItem(deps: EvalDeps, exp: Record<string, any>, item: Record<string, any>, run: Record<string, any>): Promise<void> {
  const evaluators = await findEvaluators(deps.db, exp.project_id, exp.evaluator_ids);
  const target: EvalTarget = {
    kind: 'request', id: run.request_id ?? `${exp.id}:${item.item_id}:${run.repetition}`, projectId: exp.project_id, orgId: exp.org_id,
    input: typeof item.input === 'string' ? item.input : inputText(item.input), output: text(run.output),
    doc: { input: item.input, output: run.output, metadata: item.metadata ?? {}, expected: item.expected_output }, expected: item.expected_output == null ? undefined : text(item.expected_output),
    latencyMs: run.latency_ms === null ? null : Number(run.latency_ms), costUsd: run.cost_usd === null ? null : Number(run.cost_usd),
  };
  const notes: string[] = [];
  for (const e of evaluators) {
    try {
      const cfg = configOf(e);
      const out: Outcome = cfg.type === 'llm_judge' ? await runJudge(deps, cfg.config, target, { 'experiment.id': exp.id, 'eval.evaluator': e.id }) : evaluateLocal(cfg, target, deps.ajv);
      await writeEvalScore(deps.db, {
        id: scoreIdOf(exp.id, e.id, `${item.item_id}#${run.repetition}`), orgId: exp.org_id, projectId: exp.project_id, name: e.name, configId: e.score_config_id,
        target: { kind: 'request', id: target.id }, outcome: out, experiment: { id: exp.id, itemId: item.item_id, repetition: run.repetition },
      });
    } catch (err) {
      if (!(err instanceof EvaluationError) && (err as { status?: number }).status !== 400) throw err; // transient: the activity retries
      notes.push(`${e.name}: ${(err as Error).message}`);
    }
  }
  if (notes.length) await deps.db('experiment_items').where({ experiment_id: exp.id, item_id: item.item_id, repetition: run.repetition }).update({ error: notes.join('; ').slice(0, 2000) });
}

export async function runItem(deps: EvalDeps, expId: string, itemId: string, repetition: number): Promise<{ status: string }> {
  const { db } = deps;
  const exp = await db('experiments').where({ id: expId }).first();
  if (!exp || exp.status === 'cancelled') return { status: 'skipped' };
  const key = { experiment_id: expId, item_id: itemId, repetition };
  let run = await db('experiment_items').where(key).first();
  if (!run || run.status === 'error') return { status: run?.status ?? 'missing' };
  const item = await datasetItem(db, exp, itemId);
  const fail = async (error: string) => (await db('experiment_items').where(key).update({ status: 'error', error, updated_at: db.fn.now() }), { status: 'error' });
  if (!item) return fail('the dataset item is gone');
  if (run.status === 'pending') {
    const s = exp.subject as { prompt_version_id: string | null; template?: unknown; provider: string; model: string; parameters?: Record<string, unknown> };
    const version = s.prompt_version_id ? await db('prompt_versions').where({ id: s.prompt_version_id }).first('content') : { content: s.template };
    if (!version) return fail('the prompt version is gone');
    const vars = itemVariables(item as { input: unknown; expected_output: unknown });
    let messages;
    try {
      const raw = typeof version.content === 'string' ? [{ role: 'user', content: version.content }] : (version.content as { role: string; content: unknown }[]);
      messages = raw.map((m) => ({ role: m.role, content: fillTemplate(text(m.content), vars, (n) => new EvaluationError(`the item has no {{${n}}}`)) }));
    } catch (err) {
      return fail((err as Error).message);
    }
    const r = await callModel(deps, {
      orgId: exp.org_id, projectId: exp.project_id, provider: s.provider, model: s.model, messages, params: s.parameters ?? {},
      properties: { 'experiment.id': expId, 'experiment.item': itemId }, promptVersionId: s.prompt_version_id,
    });
    if (r.status === 429 || r.status >= 500) throw new Error(`${s.provider} answered ${r.status} (retried with backoff)`);
    if (r.status >= 400) return fail(`${s.provider} answered ${r.status}: ${r.error ?? ''}`.slice(0, 2000));
    [run] = await db('experiment_items').where(key).update({ status: 'completed', output: JSON.stringify(r.content), request_id: r.requestId, latency_ms: r.latencyMs, cost_usd: r.costUsd, updated_at: db.fn.now() }).returning('*');
  }
  await scoreItem(deps, exp, item, run);
  return { status: 'completed' };
}
