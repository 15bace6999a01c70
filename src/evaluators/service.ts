import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { badRequest, conflict, notFound } from '../http/errors';
import { findConfig } from '../score-configs/service';
import { oneProject } from '../score-configs/service';
import { checkConfig, scoreTypeOf } from './evaluate';
import * as q from './queries';
import {
  evaluatorConfig,
  type CreateEvaluatorInput,
  type EvaluatorConfig,
  type EvaluatorView,
  type UpdateEvaluatorInput,
} from './schemas';
import { isoText } from '../db/convert';
import type { Scope } from '../http/route';

/** What other features read of this one's data (they never import its queries). */
export { findEvaluators } from './queries';

/** Evaluators: rules that score requests and traces (docs/evals.md). */

// The stored config was checked against its type when written: the pair is one EvaluatorConfig.
export const configOf = (r: Pick<q.EvaluatorRecord, 'type' | 'config'>) =>
  ({ type: r.type, config: r.config }) as EvaluatorConfig;
const toView = (r: q.EvaluatorRunRecord): EvaluatorView => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  type: r.type,
  config: r.config,
  score_data_type: scoreTypeOf(configOf(r)),
  score_config_id: r.score_config_id ?? null,
  online: r.online ?? null,
  online_run_id: r.online_run_id ?? null,
  description: r.description ?? null,
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
});

/**
 * Beyond the schema: the pattern or JSON Schema compiles; the score config is the project's and of the evaluator's data
 * type.
 */
export async function check(db: Knex, projectId: string, e: EvaluatorConfig, scoreConfigId: string | null | undefined) {
  try {
    checkConfig(e);
  } catch (err) {
    throw badRequest(`invalid ${e.type} config: ${(err as Error).message}`, 'invalid_evaluator');
  }
  if (!scoreConfigId) return;
  const c = await findConfig(db, [projectId], scoreConfigId);
  if (!c) throw notFound('Score config');
  if (c.data_type !== scoreTypeOf(e))
    throw badRequest(
      `a ${e.type} evaluator writes ${scoreTypeOf(e)} scores; the config is ${c.data_type}`,
      'score_type_mismatch',
    );
}

const taken = (name: string) =>
  conflict(`An evaluator named "${name}" already exists in this project`, 'evaluator_exists');
const userIdOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);

export async function createEvaluator(db: Knex, actor: Principal, scope: Scope, body: CreateEvaluatorInput) {
  const input = body as typeof body & {
    name: string;
    description?: string | null;
    score_config_id?: string | null;
    online?: object | null;
  };
  const projectId = oneProject(scope);
  const e = { type: input.type, config: input.config } as EvaluatorConfig;
  await check(db, projectId, e, input.score_config_id);
  return db.transaction(async (trx) => {
    const row = await q.insertEvaluator(trx, {
      org_id: scope.orgId,
      project_id: projectId,
      name: input.name,
      type: e.type,
      config: JSON.stringify(e.config),
      score_config_id: input.score_config_id ?? null,
      description: input.description ?? null,
      online: input.online ? JSON.stringify(input.online) : null,
      online_watermark: input.online ? trx.fn.now() : null,
      created_by: userIdOf(actor),
    });
    if (!row) throw taken(input.name);
    await q.syncOnlineRun(trx, row);
    const view = toView((await q.findEvaluator(trx, [projectId], row.id))!);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'evaluator.created',
      resourceType: 'evaluator',
      resourceId: view.id,
      after: view,
    });
    return view;
  });
}

export async function updateEvaluator(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  input: UpdateEvaluatorInput,
) {
  const before = await q.findEvaluator(db, projectIds, id);
  if (!before) throw notFound('Evaluator');
  let e = configOf(before);
  if (input.config !== undefined) {
    const parsed = evaluatorConfig.safeParse({ type: before.type, config: input.config });
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw badRequest(`invalid ${before.type} config: ${issues}`, 'validation_error');
    }
    e = parsed.data;
  }
  await check(
    db,
    before.project_id,
    e,
    input.score_config_id !== undefined ? input.score_config_id : before.score_config_id,
  );
  return db.transaction(async (trx) => {
    const patch: Record<string, unknown> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.score_config_id !== undefined) patch.score_config_id = input.score_config_id;
    if (input.config !== undefined) patch.config = JSON.stringify(e.config);
    if (input.online !== undefined) {
      patch.online = input.online ? JSON.stringify(input.online) : null;
      // Turning it on scores traffic from now on (a past range is an eval run's job: a backfill).
      if (input.online && !before.online) patch.online_watermark = trx.fn.now();
    }
    const row = await q.updateEvaluator(trx, id, patch).catch((err: { code?: string }) => {
      throw err.code === '23505' ? taken(String(input.name)) : err;
    });
    if (input.online !== undefined) await q.syncOnlineRun(trx, row);
    const after = toView((await q.findEvaluator(trx, [before.project_id], id))!);
    await recordAudit(trx, {
      orgId: before.org_id,
      actor,
      action: 'evaluator.updated',
      resourceType: 'evaluator',
      resourceId: id,
      before: toView(before),
      after,
    });
    return after;
  });
}

export async function deleteEvaluator(db: Knex, actor: Principal, projectIds: string[], id: string) {
  return db.transaction(async (trx) => {
    const before = await q.findEvaluator(trx, projectIds, id);
    if (!before) throw notFound('Evaluator');
    await q.syncOnlineRun(trx, { ...before, online: null });
    await q.deleteEvaluator(trx, id);
    await recordAudit(trx, {
      orgId: before.org_id,
      actor,
      action: 'evaluator.deleted',
      resourceType: 'evaluator',
      resourceId: id,
      before: toView(before),
    });
    return { id, deleted: true as const };
  });
}

export const listEvaluators = async (db: Knex, projectIds: string[], type?: string) =>
  (await q.listEvaluators(db, projectIds, type)).map(toView);
export async function getEvaluator(db: Knex, projectIds: string[], id: string) {
  const row = await q.findEvaluator(db, projectIds, id);
  if (!row) throw notFound('Evaluator');
  return toView(row);
}
