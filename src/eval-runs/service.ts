import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import { type Principal, actorLabel } from '../auth/principal';
import { findEvaluators } from '../evaluators/service';
import { HttpError, notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { oneProject } from '../score-configs/service';
import type { Temporal } from '../temporal/client';
import { searchAttributes } from '../temporal/names';
import { evalRunSummary } from '../temporal/summaries';
import * as q from './queries';
import type { CreateRunInput, RunView } from './schemas';
import { isoOrNull, isoText } from '../db/convert';
import type { Scope } from '../http/route';

/** What other features read of this one's data (they never import its queries). */
export { targetIds } from './queries';

/** Eval runs: each a Temporal workflow `eval-run-<id>` (docs/evals.md). */
export interface RunDeps {
  db: Knex;
  temporal: Temporal;
  taskQueue: string;
}
const START_WAIT_MS = 5_000;

async function toView(db: Knex, r: q.RunRecord): Promise<RunView> {
  const s = await q.runStats(db, r.id);
  const counts = { pending: 0, completed: 0, error: 0, delayed: 0 };
  for (const c of s.counts) counts[c.status as keyof typeof counts] = Number(c.n);
  const total = r.total ?? null;
  return {
    id: r.id,
    project_id: r.project_id,
    status: r.status,
    online: Boolean(r.online),
    evaluator_ids: r.evaluator_ids,
    target: r.target,
    workflow_id: r.workflow_id,
    total,
    counts,
    progress: total
      ? Math.round(((counts.completed + counts.error) / total) * 1e4) / 1e4
      : r.status === 'completed'
        ? 1
        : 0,
    scores: s.scores.map((x) => ({
      evaluator_id: x.evaluator_id,
      count: Number(x.n),
      average: x.avg === null ? null : Math.round(Number(x.avg) * 1e6) / 1e6,
    })),
    judge_cost_usd: Math.round(s.cost * 1e10) / 1e10,
    error: r.error ?? null,
    created_at: isoText(r.created_at),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
  };
}

/** Records the run and starts its workflow; Temporal unreachable → the run is failed and the answer is 503. */
export async function createRun(deps: RunDeps, actor: Principal, scope: Scope, input: CreateRunInput) {
  const projectId = oneProject(scope);
  const ids = [...new Set(input.evaluator_ids)];
  const evaluators = await findEvaluators(deps.db, projectId, ids);
  if (evaluators.length !== ids.length) throw notFound('Evaluator');
  const id = randomUUID();
  const workflowId = `eval-run-${id}`;
  await deps.db.transaction(async (trx) => {
    await trx('eval_runs').insert({
      id,
      org_id: scope.orgId,
      project_id: projectId,
      evaluator_ids: ids,
      target: JSON.stringify(input.target),
      workflow_id: workflowId,
      created_by: actorLabel(actor),
    });
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'eval_run.created',
      resourceType: 'eval_run',
      resourceId: id,
      after: { evaluator_ids: ids, target: input.target },
    });
  });
  try {
    await deps.temporal.connection.withDeadline(Date.now() + START_WAIT_MS, () =>
      deps.temporal.client.workflow.start('evalRunWorkflow', {
        taskQueue: deps.taskQueue,
        workflowId,
        args: [id, input.concurrency],
        typedSearchAttributes: [
          { key: searchAttributes.OrganizationId, value: scope.orgId },
          { key: searchAttributes.ProjectId, value: projectId },
        ],
        memo: { evalRunId: id },
        staticSummary: evalRunSummary({
          evaluatorNames: evaluators.map((e) => e.name),
          targetKind: input.target.kind,
          limit: input.target.limit,
        }),
      }),
    );
  } catch (err) {
    await q.setRun(deps.db, id, {
      status: 'failed',
      error: `could not start the workflow: ${(err as Error).message}`.slice(0, 1000),
      finished_at: deps.db.fn.now(),
    });
    throw new HttpError(
      503,
      'temporal_unavailable',
      'Temporal is unreachable: the run was not started (it is recorded as failed); try again',
    );
  }
  return toView(deps.db, (await q.runById(deps.db, id))!);
}

export async function getRun(db: Knex, projectIds: string[], id: string) {
  const r = await q.findRun(db, projectIds, id);
  if (!r) throw notFound('Eval run');
  return toView(db, r);
}

export async function listRuns(db: Knex, projectIds: string[], limit: number) {
  return Promise.all((await q.listRuns(db, projectIds, limit)).map((r) => toView(db, r)));
}

const cursor = cursorCodec('text', 'uuid');
export async function results(
  db: Knex,
  projectIds: string[],
  id: string,
  p: { status?: string | undefined; limit: number; cursor?: string | undefined },
) {
  if (!(await q.findRun(db, projectIds, id))) throw notFound('Eval run');
  const after = p.cursor ? (cursor.decode(p.cursor) as [string, string]) : null;
  const rows = await q.listItems(db, id, { status: p.status, after, limit: p.limit });
  return pageOf(
    rows,
    p.limit,
    cursor,
    (r) => [r.target_id, r.evaluator_id],
    (r) => ({
      target_id: r.target_id,
      evaluator_id: r.evaluator_id,
      status: r.status,
      score_id: r.score_id ?? null,
      value: r.value ?? null,
      string_value: r.string_value ?? null,
      error: r.error ?? null,
      judge_request_id: r.judge_request_id ?? null,
      updated_at: isoText(r.updated_at),
    }),
  );
}

/**
 * Cancels the run's workflow and marks the run cancelled; from then on it does not change. A finished run is answered
 * as it is.
 */
export async function cancelRun(deps: RunDeps, actor: Principal, projectIds: string[], id: string) {
  const r = await q.findRun(deps.db, projectIds, id);
  if (!r) throw notFound('Eval run');
  // A rolling run has no workflow of its own (the online-evaluation schedule feeds it): it ends
  // when its evaluator's online setting is turned off, which also stops new items being queued.
  if (r.online && ['pending', 'running'].includes(r.status)) {
    throw new HttpError(
      409,
      'online_run',
      "An online evaluator's rolling run stops when the evaluator's online setting is turned off " +
        '(PATCH /api/v1/evaluators/:id with online: null)',
    );
  }
  if (['pending', 'running'].includes(r.status)) {
    try {
      await deps.temporal.connection.withDeadline(Date.now() + START_WAIT_MS, () =>
        deps.temporal.client.workflow.getHandle(r.workflow_id).cancel(),
      );
    } catch (err) {
      throw new HttpError(503, 'temporal_unavailable', `Temporal is unreachable: ${(err as Error).message}`);
    }
    // Updating the run's row waits for item writes in flight (they hold it FOR SHARE, q.whileOpen);
    // any later one finds the run cancelled and is dropped, so the answer below is final.
    await deps.db.transaction(async (trx) => {
      if (await q.setOpenRun(trx, id, { status: 'cancelled', finished_at: trx.fn.now() })) {
        await recordAudit(trx, {
          orgId: r.org_id,
          actor,
          action: 'eval_run.cancelled',
          resourceType: 'eval_run',
          resourceId: id,
          before: { status: r.status },
          after: { status: 'cancelled' },
        });
      }
    });
  }
  return getRun(deps.db, projectIds, id);
}
