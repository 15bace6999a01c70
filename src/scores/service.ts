import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { type Principal, actorLabel } from '../auth/principal';
import { badRequest, conflict, notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { findConfig } from '../score-configs/service';
import * as q from './queries';
import type { CreateScoreInput, ListScoresParams, ScoreView } from './schemas';
import { normalizeValue, type ConfigShape } from './value';
import { isoText } from '../db/convert';
import type { Scope } from '../http/route';

/** What other features read of this one's data (they never import its queries). */
export { scoresOfTrace, scoresOfRequests } from './queries';

/** Scores: written by the API, the evaluators and human annotation (docs/scores.md). */
const cursor = cursorCodec('ts', 'uuid');

// `?? null`: a missing column reads as null, as before the rows were typed.
export const toView = (r: q.ScoreRecord): ScoreView => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  data_type: r.data_type,
  value: r.value ?? null,
  string_value: r.string_value ?? null,
  source: r.source,
  comment: r.comment ?? null,
  config_id: r.config_id ?? null,
  target_type: r.target_type,
  request_id: r.request_id ?? null,
  trace_id: r.trace_id ?? null,
  span_id: r.span_id ?? null,
  session_id: r.session_id ?? null,
  experiment_id: r.experiment_id ?? null,
  experiment_item_id: r.experiment_item_id ?? null,
  experiment_repetition: r.experiment_repetition ?? null,
  created_by: r.created_by ?? null,
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
});

/** The project of the score's target, which must exist in the caller's projects. */
async function projectOfTarget(db: Knex, scope: Scope, input: CreateScoreInput): Promise<string> {
  const found =
    input.session_id !== undefined
      ? await q.sessionProjects(db, scope.projectIds, input.session_id)
      : input.experiment_id !== undefined
        ? await q.experimentItemProjects(
            db,
            scope.projectIds,
            input.experiment_id,
            input.experiment_item_id!,
            input.repetition ?? 0,
          )
        : await q.targetProjects(db, scope.projectIds, input);
  const what = input.request_id
    ? 'Request'
    : input.span_id
      ? 'Span'
      : input.trace_id
        ? 'Trace'
        : input.experiment_id
          ? 'Experiment item'
          : 'Session';
  if (!found.length) throw notFound(what);
  if (found.length > 1)
    throw badRequest(
      `This ${what.toLowerCase()} id exists in several projects: send project_id`,
      'project_id_required',
    );
  return found[0]!;
}

/**
 * Writes a score (201 created, 200 when the same id was written before: updated in place). Its
 * value is checked against its config; an archived config takes no new scores.
 */
export async function writeScore(
  db: Knex,
  actor: Principal | null,
  scope: Scope,
  input: CreateScoreInput,
  source: ScoreView['source'] = 'api',
) {
  const projectId = await projectOfTarget(db, scope, input);
  let config: (ConfigShape & { id: string; name: string; is_archived: boolean }) | null = null;
  if (input.config_id) {
    config = (await findConfig(db, [projectId], input.config_id)) ?? null;
    if (!config) throw notFound('Score config');
    if (config.is_archived)
      throw badRequest('This score config is archived: it takes no new scores', 'score_config_archived');
    if (input.name !== undefined && input.name !== config.name)
      throw badRequest(`The config is named "${config.name}", not "${input.name}"`, 'score_name_mismatch');
    if (input.data_type !== undefined && input.data_type !== config.data_type)
      throw badRequest(`The config's data_type is ${config.data_type}`, 'score_type_mismatch');
  }
  const name = input.name ?? config?.name;
  if (!name) throw badRequest('name is required without config_id', 'validation_error');
  const type = config?.data_type ?? input.data_type ?? (input.value !== undefined ? 'numeric' : 'categorical');
  const value = normalizeValue(type, config, input.value, input.string_value);
  const target = input.request_id
    ? 'request'
    : input.session_id !== undefined
      ? 'session'
      : input.experiment_id
        ? 'experiment_item'
        : input.span_id
          ? 'span'
          : 'trace';
  const out = await q.upsertScore(db, {
    id: input.id ?? randomUUID(),
    org_id: scope.orgId,
    project_id: projectId,
    name,
    data_type: type,
    ...value,
    source,
    comment: input.comment ?? null,
    config_id: config?.id ?? null,
    target_type: target,
    request_id: input.request_id ?? null,
    trace_id: input.trace_id ?? null,
    span_id: input.span_id ?? null,
    session_id: input.session_id ?? null,
    experiment_id: input.experiment_id ?? null,
    experiment_item_id: input.experiment_item_id ?? null,
    experiment_repetition: input.experiment_id ? (input.repetition ?? 0) : null,
    created_by: actor ? actorLabel(actor) : source,
  });
  if (!out) throw conflict('This score id is taken by another project', 'score_id_conflict');
  return { created: out.created, row: toView(out.row) };
}

export async function listScores(db: Knex, projectIds: string[], p: ListScoresParams) {
  const after = p.cursor ? (cursor.decode(p.cursor) as [string, string]) : null;
  const rows = await q.listScores(db, {
    projectIds,
    name: p.name,
    source: p.source,
    dataType: p.data_type,
    configId: p.config_id,
    targetType: p.target_type,
    requestId: p.request_id,
    traceId: p.trace_id,
    spanId: p.span_id,
    sessionId: p.session_id,
    experimentId: p.experiment_id,
    from: p.from,
    to: p.to,
    after,
    limit: p.limit,
  });
  return pageOf(rows, p.limit, cursor, (r) => [isoText(r.created_at), r.id], toView);
}

export async function getScore(db: Knex, projectIds: string[], id: string) {
  const row = await q.findScore(db, projectIds, id);
  if (!row) throw notFound('Score');
  return toView(row);
}

export async function deleteScore(db: Knex, projectIds: string[], id: string) {
  const row = await q.findScore(db, projectIds, id);
  if (!row) throw notFound('Score');
  await q.deleteScore(db, id);
  return { id, deleted: true as const };
}

/**
 * An evaluator's score (source `eval`): the target is known to exist, the id is the run's
 * deterministic one, and the value is checked against the evaluator's score config.
 */
export async function writeEvalScore(
  db: Knex,
  s: {
    id: string;
    orgId: string;
    projectId: string;
    name: string;
    configId: string | null;
    target: { kind: 'request' | 'trace'; id: string };
    outcome: { data_type: ScoreView['data_type']; value?: number; string_value?: string; comment: string | null };
    experiment?: { id: string; itemId: string; repetition: number };
  },
) {
  const config = s.configId ? ((await findConfig(db, [s.projectId], s.configId)) ?? null) : null;
  const value = normalizeValue(s.outcome.data_type, config, s.outcome.value, s.outcome.string_value);
  const out = await q.upsertScore(db, {
    id: s.id,
    org_id: s.orgId,
    project_id: s.projectId,
    name: s.name,
    data_type: s.outcome.data_type,
    ...value,
    source: 'eval',
    comment: s.outcome.comment,
    config_id: config?.id ?? null,
    target_type: s.experiment ? 'experiment_item' : s.target.kind,
    request_id: !s.experiment && s.target.kind === 'request' ? s.target.id : null,
    trace_id: !s.experiment && s.target.kind === 'trace' ? s.target.id : null,
    span_id: null,
    session_id: null,
    experiment_id: s.experiment?.id ?? null,
    experiment_item_id: s.experiment?.itemId ?? null,
    experiment_repetition: s.experiment?.repetition ?? null,
    created_by: 'eval',
  });
  if (!out) throw conflict('This score id is taken by another project', 'score_id_conflict');
  return toView(out.row);
}
