import type { Knex } from 'knex';
import { EvaluationError, evaluateLocal, type Outcome } from '../evaluators/evaluate';
import { runJudge } from '../evaluators/judge';
import { findEvaluators } from '../evaluators/service';
import { configOf } from '../evaluators/service';
import { inputText, type EvalTarget } from '../evaluators/targets';
import type { EvalDeps } from '../eval-runs/execute';
import { scoreIdOf } from '../eval-runs/execute';
import { callModel } from '../llm/call';
import { fillTemplate } from '../prompts/variables';
import { writeEvalScore } from '../scores/service';
import { itemsAt } from '../datasets/service';
import type { ItemRecord } from '../datasets/queries';
import { whileOpen, type ExperimentRecord, type ItemRunRecord } from './queries';

/**
 * One item run of an experiment (the activity of workflows/experiment.ts, and the outputs route
 * for external subjects): produce the output once — a retried activity finds it stored and does
 * not call the model again — then score it with the experiment's evaluators (deterministic score
 * ids, so re-scoring rewrites the same scores). A cancelled experiment takes no more writes.
 */
const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * Template variables of a dataset item: the fields of an object input, or `input` for a plain one; plus
 * `expected_output`.
 */
function itemVariables(item: { input: unknown; expected_output: unknown }): Record<string, string> {
  const base =
    item.input && typeof item.input === 'object' && !Array.isArray(item.input)
      ? Object.fromEntries(Object.entries(item.input).map(([k, v]) => [k, text(v)]))
      : {};
  return { input: text(item.input), ...base, expected_output: text(item.expected_output) };
}

async function datasetItem(db: Knex, exp: ExperimentRecord, itemId: string): Promise<ItemRecord | undefined> {
  const [row] = await itemsAt(db, exp.dataset_id, {
    version: exp.dataset_version.toISOString(),
    status: 'all',
    after: null,
    limit: 1,
  }).where('item_id', itemId);
  return row;
}

/** What scoring needs of an item run (the outputs route scores one before it is stored). */
type RunToScore = Pick<ItemRunRecord, 'request_id' | 'repetition' | 'output' | 'latency_ms' | 'cost_usd'>;

/** What scoring an item run came to: the scores to write, and a note per evaluator that failed. */
export interface Scored {
  scores: Parameters<typeof writeEvalScore>[1][];
  notes: string[];
}

/**
 * Scores a produced output with every evaluator of the experiment (judge calls included) without
 * writing anything: writeScored stores the outcome, so a cancel in between drops it whole.
 */
export async function scoreOutput(
  deps: EvalDeps,
  exp: ExperimentRecord,
  item: ItemRecord,
  run: RunToScore,
): Promise<Scored> {
  const evaluators = await findEvaluators(deps.db, exp.project_id, exp.evaluator_ids);
  const target: EvalTarget = {
    kind: 'request',
    id: run.request_id ?? `${exp.id}:${item.item_id}:${run.repetition}`,
    projectId: exp.project_id,
    orgId: exp.org_id,
    input: typeof item.input === 'string' ? item.input : inputText(item.input),
    output: text(run.output),
    doc: { input: item.input, output: run.output, metadata: item.metadata ?? {}, expected: item.expected_output },
    expected: item.expected_output == null ? undefined : text(item.expected_output),
    latencyMs: run.latency_ms === null || run.latency_ms === undefined ? null : Number(run.latency_ms),
    costUsd: run.cost_usd === null || run.cost_usd === undefined ? null : Number(run.cost_usd),
  };
  const out: Scored = { scores: [], notes: [] };
  for (const e of evaluators) {
    deps.signal?.throwIfAborted(); // the activity was cancelled: no new judge call
    try {
      const cfg = configOf(e);
      const outcome: Outcome =
        cfg.type === 'llm_judge'
          ? await runJudge(deps, cfg.config, target, { 'experiment.id': exp.id, 'eval.evaluator': e.id })
          : evaluateLocal(cfg, target, deps.ajv);
      out.scores.push({
        id: scoreIdOf(exp.id, e.id, `${item.item_id}#${run.repetition}`),
        orgId: exp.org_id,
        projectId: exp.project_id,
        name: e.name,
        configId: e.score_config_id,
        target: { kind: 'request', id: target.id },
        outcome,
        experiment: { id: exp.id, itemId: item.item_id, repetition: run.repetition },
      });
    } catch (err) {
      // transient: the activity retries
      if (!(err instanceof EvaluationError) && (err as { status?: number }).status !== 400) throw err;
      out.notes.push(`${e.name}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** Writes the scores of an item run (a score its config refuses becomes a note) and notes the failures on it. */
export async function writeScored(
  trx: Knex.Transaction,
  key: { experiment_id: string; item_id: string; repetition: number },
  scored: Scored,
): Promise<void> {
  const notes = [...scored.notes];
  for (const score of scored.scores) {
    try {
      await trx.transaction((sp) => writeEvalScore(sp, score)); // a savepoint: a refused score leaves the rest
    } catch (err) {
      if ((err as { status?: number }).status !== 400) throw err;
      notes.push(`${score.name}: ${(err as Error).message}`);
    }
  }
  if (notes.length)
    await trx('experiment_items')
      .where(key)
      .update({ error: notes.join('; ').slice(0, 2000) });
}

/**
 * Runs one item: the model call, then its scores. Each write is made only while the experiment is
 * open (q.whileOpen): a cancel drops what was in flight. The output is stored before scoring, so a
 * retry (or a cancel during scoring) never pays for the model call twice.
 */
export async function runItem(
  deps: EvalDeps,
  expId: string,
  itemId: string,
  repetition: number,
): Promise<{ status: string }> {
  const { db } = deps;
  const skipped = { status: 'skipped' };
  const exp = await db('experiments').where({ id: expId }).first();
  if (!exp || exp.status === 'cancelled') return skipped;
  const key = { experiment_id: expId, item_id: itemId, repetition };
  let run = await db('experiment_items').where(key).first();
  if (!run || run.status === 'error') return { status: run?.status ?? 'missing' };
  const item = await datasetItem(db, exp, itemId);
  const fail = async (error: string) =>
    (await whileOpen(db, expId, (trx) =>
      trx('experiment_items').where(key).update({ status: 'error', error, updated_at: trx.fn.now() }),
    ))
      ? { status: 'error' }
      : skipped;
  if (!item) return fail('the dataset item is gone');
  if (run.status === 'pending') {
    const s = exp.subject as {
      prompt_version_id: string | null;
      template?: unknown;
      provider: string;
      model: string;
      parameters?: Record<string, unknown>;
    };
    const version = s.prompt_version_id
      ? await db('prompt_versions').where({ id: s.prompt_version_id }).first('content')
      : { content: s.template };
    if (!version) return fail('the prompt version is gone');
    const vars = itemVariables(item as { input: unknown; expected_output: unknown });
    let messages;
    try {
      const raw =
        typeof version.content === 'string'
          ? [{ role: 'user', content: version.content }]
          : (version.content as { role: string; content: unknown }[]);
      messages = raw.map((m) => ({
        role: m.role,
        content: fillTemplate(text(m.content), vars, (n) => new EvaluationError(`the item has no {{${n}}}`)),
      }));
    } catch (err) {
      return fail((err as Error).message);
    }
    deps.signal?.throwIfAborted();
    const r = await callModel(deps, {
      orgId: exp.org_id,
      projectId: exp.project_id,
      provider: s.provider,
      model: s.model,
      messages,
      params: s.parameters ?? {},
      properties: { 'experiment.id': expId, 'experiment.item': itemId },
      promptVersionId: s.prompt_version_id,
    });
    if (r.status === 429 || r.status >= 500)
      throw new Error(`${s.provider} answered ${r.status} (retried with backoff)`);
    if (r.status >= 400) return fail(`${s.provider} answered ${r.status}: ${r.error ?? ''}`.slice(0, 2000));
    const stored = await whileOpen(db, expId, async (trx) => {
      [run] = await trx('experiment_items')
        .where(key)
        .update({
          status: 'completed',
          output: JSON.stringify(r.content),
          request_id: r.requestId,
          latency_ms: r.latencyMs,
          cost_usd: r.costUsd,
          updated_at: trx.fn.now(),
        })
        .returning('*');
    });
    if (!stored) return skipped;
  }
  const scored = await scoreOutput(deps, exp, item, run);
  if (!(await whileOpen(db, expId, (trx) => writeScored(trx, key, scored)))) return skipped;
  return { status: 'completed' };
}
