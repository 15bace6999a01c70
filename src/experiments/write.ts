import { recordAudit } from '../audit/audit';
import { newAjv } from '../evaluators/json-schema';
import { type Principal, actorLabel } from '../auth/principal';
import { findEvaluators } from '../evaluators/service';
import { HttpError, badRequest, conflict, notFound } from '../http/errors';
import type { LlmDeps } from '../llm/call';
import { resolvePromptRef } from '../prompts/service';
import { parsePromptRef } from '../prompts/ref';
import { oneProject } from '../score-configs/service';
import { searchAttributes } from '../temporal/names';
import { experimentSummary } from '../temporal/summaries';
import { itemsAt } from '../datasets/service';
import * as q from './queries';
import { scoreOutput, writeScored, type Scored } from './run';
import type { CreateExperimentInput, OutputsInput } from './schemas';
import { isoOrNull } from '../db/convert';
import type { Scope } from '../http/route';
import { getExperiment, toView, type ExperimentDeps } from './service';

// An experiment's writes: its creation, an external subject's outputs, its cancellation (reads: service.ts).

const MAX_RUNS = 10_000;

/**
 * Resolves the subject and the dataset version, records one item run per (item, repetition), starts the workflow of a
 * prompt subject.
 */
export async function createExperiment(
  deps: ExperimentDeps,
  actor: Principal,
  scope: Scope,
  input: CreateExperimentInput,
) {
  const { db } = deps;
  const projectId = oneProject(scope);
  const ds = await db('datasets').where({ id: input.dataset_id, project_id: projectId }).first('id');
  if (!ds) throw notFound('Dataset');
  const version =
    input.dataset_version ??
    isoOrNull((await db('dataset_versions').where({ dataset_id: ds.id }).max('version as v').first())?.v);
  if (!version) throw badRequest('The dataset has no items yet', 'dataset_empty');
  const evaluatorIds = [...new Set(input.evaluator_ids)];
  if ((await findEvaluators(db, projectId, evaluatorIds)).length !== evaluatorIds.length) throw notFound('Evaluator');
  let subject: Record<string, unknown> = { kind: 'external' };
  if (input.subject.kind === 'prompt' && input.subject.template !== undefined) {
    if (!input.subject.model) throw badRequest('subject.model is required with an inline template', 'model_required');
    subject = {
      kind: 'prompt',
      template: input.subject.template,
      prompt_version_id: null,
      provider: input.subject.provider,
      model: input.subject.model,
      parameters: input.subject.parameters ?? {},
    };
  } else if (input.subject.kind === 'prompt') {
    const ref = parsePromptRef(input.subject.prompt!);
    if (!ref)
      throw badRequest(
        'subject.prompt must be <name>@<version|latest|label> or a prompt-version id',
        'invalid_prompt_version',
      );
    const v = await resolvePromptRef(db, [projectId], ref);
    if (!v) throw notFound('Prompt version', 'prompt_version_not_found');
    const model = input.subject.model ?? v.model;
    if (!model) throw badRequest('subject.model is required (the prompt version names none)', 'model_required');
    subject = {
      kind: 'prompt',
      prompt: input.subject.prompt,
      prompt_version_id: v.id,
      version: v.version,
      provider: input.subject.provider,
      model,
      parameters: { ...(v.parameters ?? {}), ...(input.subject.parameters ?? {}) },
    };
  }
  const items = await itemsAt(db, ds.id, {
    version,
    split: input.split,
    status: 'active',
    after: null,
    limit: MAX_RUNS,
  });
  if (!items.length) throw badRequest('No active items at that version (and split)', 'dataset_empty');
  if (items.length * input.repetitions > MAX_RUNS)
    throw badRequest(`At most ${MAX_RUNS} item runs (items × repetitions)`, 'experiment_too_large');
  const row = await db.transaction(async (trx) => {
    const [e] = await trx('experiments')
      .insert({
        org_id: scope.orgId,
        project_id: projectId,
        name: input.name,
        dataset_id: ds.id,
        dataset_version: version,
        subject: JSON.stringify(subject),
        evaluator_ids: evaluatorIds,
        repetitions: input.repetitions,
        status: subject.kind === 'prompt' ? 'running' : 'awaiting_outputs',
        created_by: actorLabel(actor),
      })
      .returning('*');
    const runs = items.flatMap((i) =>
      Array.from({ length: input.repetitions }, (_, repetition) => ({
        experiment_id: e.id,
        item_id: i.item_id,
        repetition,
      })),
    );
    for (let i = 0; i < runs.length; i += 1000) await trx('experiment_items').insert(runs.slice(i, i + 1000));
    if (subject.kind === 'prompt')
      await trx('experiments')
        .where({ id: e.id })
        .update({ workflow_id: `experiment-${e.id}` });
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'experiment.created',
      resourceType: 'experiment',
      resourceId: e.id,
      after: { name: input.name, dataset_id: ds.id, dataset_version: version, subject },
    });
    return { ...e, workflow_id: subject.kind === 'prompt' ? `experiment-${e.id}` : null };
  });
  if (subject.kind === 'prompt') {
    try {
      await deps.temporal.connection.withDeadline(Date.now() + 5_000, () =>
        deps.temporal.client.workflow.start('experimentWorkflow', {
          taskQueue: deps.taskQueue,
          workflowId: row.workflow_id,
          args: [row.id, input.concurrency],
          typedSearchAttributes: [
            { key: searchAttributes.OrganizationId, value: scope.orgId },
            { key: searchAttributes.ProjectId, value: projectId },
          ],
          staticSummary: experimentSummary({
            name: input.name,
            items: items.length,
            repetitions: input.repetitions,
            evaluators: evaluatorIds.length,
          }),
        }),
      );
    } catch (err) {
      await db('experiments')
        .where({ id: row.id })
        .update({
          status: 'failed',
          error: `could not start the workflow: ${(err as Error).message}`.slice(0, 1000),
          finished_at: db.fn.now(),
        });
      throw new HttpError(
        503,
        'temporal_unavailable',
        'Temporal is unreachable: the experiment was not started (it is recorded as failed)',
      );
    }
  }
  return toView(db, (await q.experimentById(db, row.id))!);
}

/**
 * An external subject's outputs: each scored, then stored with its scores in one write while the
 * experiment is open (a cancel meanwhile answers 409 and drops the output); the experiment is
 * completed when none is left.
 */
export async function postOutputs(deps: LlmDeps, projectIds: string[], id: string, input: OutputsInput) {
  const { db } = deps;
  const exp = await q.findExperiment(db, projectIds, id);
  if (!exp) throw notFound('Experiment');
  if ((exp.subject as { kind: string }).kind !== 'external')
    throw conflict('This experiment runs a prompt: its outputs are produced by the gateway', 'not_external');
  if (exp.status !== 'awaiting_outputs') throw conflict(`The experiment is ${exp.status}`, 'experiment_closed');
  const evalDeps = { ...deps, ajv: newAjv() };
  const results: { item_id: string; repetition: number; status: string }[] = [];
  for (const o of input.outputs) {
    const key = { experiment_id: id, item_id: o.item_id, repetition: o.repetition };
    const before = await db('experiment_items').where(key).first();
    if (!before) throw notFound(`Experiment item ${o.item_id}#${o.repetition}`);
    const patch = {
      status: o.error ? 'error' : 'completed',
      trace_id: o.trace_id ?? null,
      latency_ms: o.latency_ms ?? null,
      cost_usd: o.cost_usd ?? null,
      error: o.error ?? null,
    };
    let scored: Scored | null = null;
    if (!o.error) {
      const [item] = await itemsAt(db, exp.dataset_id, {
        version: exp.dataset_version.toISOString(),
        status: 'all',
        after: null,
        limit: 1,
      }).where('item_id', o.item_id);
      scored = await scoreOutput(evalDeps, exp, item!, { ...before, ...patch, output: o.output });
    }
    const written = await q.whileOpen(db, id, async (trx) => {
      await trx('experiment_items')
        .where(key)
        .update({ ...patch, output: JSON.stringify(o.output), updated_at: trx.fn.now() });
      if (scored) await writeScored(trx, key, scored);
    });
    if (!written)
      throw conflict(
        `The experiment is ${(await db('experiments').where({ id }).first('status'))?.status ?? 'gone'}`,
        'experiment_closed',
      );
    results.push({ item_id: o.item_id, repetition: o.repetition, status: patch.status });
  }
  if (!(await db('experiment_items').where({ experiment_id: id, status: 'pending' }).first()))
    await q.finishExperiment(db, id, 'completed');
  return { results, experiment: await toView(db, (await q.experimentById(db, id))!) };
}

export async function cancelExperiment(deps: ExperimentDeps, actor: Principal, projectIds: string[], id: string) {
  const exp = await q.findExperiment(deps.db, projectIds, id);
  if (!exp) throw notFound('Experiment');
  if (['running', 'awaiting_outputs'].includes(exp.status)) {
    const workflowId = exp.workflow_id;
    if (workflowId) {
      try {
        await deps.temporal.connection.withDeadline(Date.now() + 5_000, () =>
          deps.temporal.client.workflow.getHandle(workflowId).cancel(),
        );
      } catch (err) {
        throw new HttpError(503, 'temporal_unavailable', `Temporal is unreachable: ${(err as Error).message}`);
      }
    }
    // Updating the row waits for item writes in flight (they hold it FOR SHARE, q.whileOpen); any
    // later one finds the experiment cancelled and is dropped, so the answer below is final.
    await deps.db.transaction(async (trx) => {
      if (await q.finishExperiment(trx, id, 'cancelled')) {
        await recordAudit(trx, {
          orgId: exp.org_id,
          actor,
          action: 'experiment.cancelled',
          resourceType: 'experiment',
          resourceId: id,
          before: { status: exp.status },
          after: { status: 'cancelled' },
        });
      }
    });
  }
  return getExperiment(deps.db, projectIds, id);
}
