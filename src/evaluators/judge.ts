import { callModel, NoProviderKey, type LlmDeps } from '../llm/call';
import { EvaluationError, expectedOf, pick, type Outcome } from './evaluate';
import type { EvaluatorConfig } from './schemas';
import type { EvalTarget } from './targets';

/**
 * LLM-as-a-judge: renders the template from the target, calls the model through the gateway's own
 * call path (src/llm/call.ts: the project's key from the vault, the call logged as a request row
 * tagged with the evaluator and the target), and reads `{"score", "reasoning"}` from the answer.
 * 429 and 5xx throw a plain Error (the activity's retry policy backs off); anything else that
 * cannot succeed is an EvaluationError. An error thrown after the call was made carries the call
 * (`judgeOf`): its cost is spent whatever the verdict.
 */
type Judge = Extract<EvaluatorConfig, { type: 'llm_judge' }>['config'];
export type JudgeDeps = LlmDeps;
export type JudgeCall = NonNullable<Outcome['judge']>;

/** The judge call behind an error thrown by runJudge, if the call was made. */
export const judgeOf = (err: unknown): JudgeCall | undefined =>
  err instanceof Error ? (err as Error & { judge?: JudgeCall }).judge : undefined;

export function render(j: Judge, t: EvalTarget): string {
  return j.template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g, (_m, name: string) => {
    if (name === 'input') return t.input;
    if (name === 'output') return t.output;
    if (name === 'expected') {
      if (j.expected === undefined && j.expected_path === undefined && t.expected === undefined)
        throw new EvaluationError(
          'the template uses {{expected}} but the evaluator sets neither expected nor expected_path',
        );
      return expectedOf(t, j);
    }
    if (name.startsWith('metadata.')) return text(t.doc.metadata[name.slice('metadata.'.length)]);
    if (j.variables?.[name]) return text(pick(t, j.variables[name]));
    throw new EvaluationError(`unknown template variable {{${name}}}`);
  });
}
const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function instruction(j: Judge): string {
  const o = j.output;
  const score =
    o.type === 'numeric'
      ? `a number from ${o.min} to ${o.max}`
      : o.type === 'boolean'
        ? 'true or false'
        : `one of ${o.categories.map((c) => JSON.stringify(c)).join(', ')}`;
  return `Answer with only a JSON object: {"score": ${score}, "reasoning": "one or two sentences"}.`;
}

/** The judge's answer as a score, or an EvaluationError naming what was wrong with it. */
export function parseVerdict(j: Judge, content: string): Omit<Outcome, 'judge'> {
  let v: { score?: unknown; reasoning?: unknown };
  try {
    v = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new EvaluationError(`the judge did not answer JSON: ${content.slice(0, 200)}`);
  }
  const comment = typeof v?.reasoning === 'string' ? v.reasoning.slice(0, 10_000) : null;
  const o = j.output;
  if (o.type === 'numeric') {
    if (typeof v.score !== 'number' || v.score < o.min || v.score > o.max)
      throw new EvaluationError(`score ${JSON.stringify(v.score)} is not a number in [${o.min}, ${o.max}]`);
    return { data_type: 'numeric', value: v.score, comment };
  }
  if (o.type === 'boolean') {
    const b = v.score === true || v.score === 'true' ? 1 : v.score === false || v.score === 'false' ? 0 : null;
    if (b === null) throw new EvaluationError(`score ${JSON.stringify(v.score)} is not true or false`);
    return { data_type: 'boolean', value: b, string_value: b ? 'true' : 'false', comment };
  }
  if (typeof v.score !== 'string' || !o.categories.includes(v.score))
    throw new EvaluationError(`score ${JSON.stringify(v.score)} is not one of ${o.categories.join(', ')}`);
  return { data_type: 'categorical', value: o.categories.indexOf(v.score), string_value: v.score, comment };
}

export async function runJudge(
  deps: JudgeDeps,
  j: Judge,
  t: EvalTarget,
  tags: Record<string, string>,
): Promise<Outcome> {
  const prompt = render(j, t);
  let r;
  try {
    r = await callModel(deps, {
      orgId: t.orgId,
      projectId: t.projectId,
      provider: j.provider,
      model: j.model,
      params: { temperature: j.temperature, max_tokens: j.max_tokens },
      messages: [
        { role: 'system', content: instruction(j) },
        { role: 'user', content: prompt },
      ],
      properties: { 'eval.target': `${t.kind}:${t.id}`, ...tags },
      traceId: t.kind === 'trace' ? t.id : null,
    });
  } catch (err) {
    if (err instanceof NoProviderKey) throw new EvaluationError(err.message);
    throw err;
  }
  const judge: JudgeCall = { requestId: r.requestId, costUsd: r.costUsd };
  try {
    if (r.status === 429 || r.status >= 500)
      throw new Error(`judge call: ${j.provider} answered ${r.status} (retried with backoff)`);
    if (r.status >= 400) throw new EvaluationError(`judge call: ${j.provider} answered ${r.status}: ${r.error ?? ''}`);
    return { ...parseVerdict(j, r.content), judge };
  } catch (err) {
    throw Object.assign(err as Error, { judge });
  }
}
