import type Ajv from 'ajv';
import type { Knex } from 'knex';
import { badRequest, HttpError, notFound } from '../http/errors';
import type { Scope } from '../http/route';
import { EvaluationError, evaluateLocal, type Outcome } from './evaluate';
import { runJudge, type JudgeDeps } from './judge';
import type { EvaluatorConfig, EvaluatorPreview, PreviewEvaluatorInput, PreviewTarget } from './schemas';
import { check } from './service';
import { loadSpanTarget, loadTarget, targetProjects, type EvalTarget } from './targets';

/**
 * POST /evaluators/preview: an evaluator definition run once on one request, trace or span, through
 * the code an eval run uses (evaluateLocal, or runJudge with the project's key). It writes no score
 * and no audit entry; an llm_judge preview's model call is a request row like any judge call.
 */
export interface PreviewDeps extends JudgeDeps {
  ajv: Ajv;
}

const EXCERPT = 2000;
const cut = (s: string) => (s.length > EXCERPT ? `${s.slice(0, EXCERPT)}…` : s);

async function findTarget(db: Knex, scope: Scope, t: PreviewTarget): Promise<{ target: EvalTarget; what: string }> {
  const ref =
    'request_id' in t
      ? { kind: 'request' as const, id: t.request_id, what: 'Request' }
      : { kind: 'trace' as const, id: t.trace_id, spanId: t.span_id, what: t.span_id ? 'Span' : 'Trace' };
  const projects = await targetProjects(db, scope.projectIds, ref);
  if (!projects.length) throw notFound(ref.what);
  if (projects.length > 1)
    throw badRequest(
      `This ${ref.what.toLowerCase()} id exists in several projects: send project_id`,
      'project_id_required',
    );
  const projectId = projects[0]!;
  const target =
    ref.kind === 'trace' && ref.spanId !== undefined
      ? await loadSpanTarget(db, projectId, ref.id, ref.spanId)
      : await loadTarget(db, ref.kind, projectId, ref.id);
  if (!target) throw notFound(ref.what); // deleted meanwhile
  return { target, what: ref.what };
}

export async function previewEvaluator(
  deps: PreviewDeps,
  scope: Scope,
  body: PreviewEvaluatorInput,
): Promise<EvaluatorPreview> {
  // The union's members are built by previewOf (schemas.ts): the common fields are typed here.
  const input = body as typeof body & { target: PreviewTarget; score_config_id?: string | null };
  const e = { type: input.type, config: input.config } as EvaluatorConfig;
  const { target, what } = await findTarget(deps.db, scope, input.target);
  await check(deps.db, target.projectId, e, input.score_config_id);
  let out: Outcome;
  try {
    out =
      e.type === 'llm_judge'
        ? await runJudge(deps, e.config, target, { 'eval.preview': 'true' })
        : evaluateLocal(e, target, deps.ajv);
  } catch (err) {
    if (err instanceof EvaluationError) throw new HttpError(422, 'evaluation_failed', err.message);
    if (err instanceof HttpError) throw err;
    // A judge answering 429 or 5xx: an eval run would retry it later; a preview reports it.
    throw new HttpError(502, 'judge_unavailable', (err as Error).message);
  }
  const spanId = 'span_id' in input.target ? (input.target.span_id ?? null) : null;
  return {
    data_type: out.data_type,
    value: out.value ?? null,
    string_value: out.string_value ?? null,
    comment: out.comment,
    judge: out.judge ? { request_id: out.judge.requestId, cost_usd: out.judge.costUsd } : null,
    target: {
      type: what === 'Request' ? 'request' : spanId !== null ? 'span' : 'trace',
      id: spanId ?? target.id,
      trace_id: target.kind === 'trace' ? target.id : null,
      project_id: target.projectId,
      input: cut(target.input),
      output: cut(target.output),
      latency_ms: target.latencyMs,
      cost_usd: target.costUsd,
    },
  };
}
