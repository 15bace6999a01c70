import type { Knex } from 'knex';
import type { ScoreView } from './schemas';

/** A scores row as pg returns it. */
export interface ScoreRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  data_type: ScoreView['data_type'];
  value: number | null;
  string_value: string | null;
  source: ScoreView['source'];
  comment: string | null;
  config_id: string | null;
  target_type: ScoreView['target_type'];
  request_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  session_id: string | null;
  experiment_id: string | null;
  experiment_item_id: string | null;
  experiment_repetition: number | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** SQL of scores. */
const projectsOf = (rows: { project_id: string }[]) => rows.map((r) => r.project_id);
export async function targetProjects(
  db: Knex,
  projectIds: string[],
  t: { request_id?: string | undefined; trace_id?: string | undefined; span_id?: string | undefined },
): Promise<string[]> {
  const scoped = (table: string) => db(table).whereIn('project_id', projectIds).select('project_id');
  if (t.request_id) return projectsOf(await scoped('requests').andWhere('id', t.request_id));
  if (t.span_id) return projectsOf(await scoped('spans').andWhere({ id: t.span_id, trace_id: t.trace_id }));
  return projectsOf(await scoped('traces').andWhere('id', t.trace_id!));
}

/**
 * The projects where a session id has traces or requests (a session is only those). Asked here, not
 * of src/sessions/, because sessions' and traces' views include scores: scores depend on neither.
 */
export async function sessionProjects(db: Knex, projectIds: string[], sessionId: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { project_id: string }[] }>(
    `select project_id from traces where project_id = any(?::uuid[]) and session_id = ?
     union select project_id from requests where project_id = any(?::uuid[]) and session_id = ?`,
    [projectIds, sessionId, projectIds, sessionId],
  );
  return rows.map((r) => r.project_id);
}

/** Inserts or (same id, same project) updates a score; undefined when the id belongs to another project. */
export async function upsertScore(
  db: Knex,
  row: Record<string, unknown>,
): Promise<{ row: ScoreRecord; created: boolean } | undefined> {
  const cols =
    'id, org_id, project_id, name, data_type, value, string_value, source, comment, config_id, target_type, ' +
    'request_id, trace_id, span_id, session_id, experiment_id, experiment_item_id, experiment_repetition, created_by';
  const { rows } = await db.raw<{ rows: (ScoreRecord & { created: boolean })[] }>(
    `insert into scores as s (${cols}) select ${cols} from json_populate_record(null::scores, ?::json)
     on conflict (id) do update set name = excluded.name, data_type = excluded.data_type, value = excluded.value,
       string_value = excluded.string_value, source = excluded.source, comment = excluded.comment,
       config_id = excluded.config_id, target_type = excluded.target_type, request_id = excluded.request_id,
       trace_id = excluded.trace_id, span_id = excluded.span_id, session_id = excluded.session_id,
       experiment_id = excluded.experiment_id, experiment_item_id = excluded.experiment_item_id,
       experiment_repetition = excluded.experiment_repetition, updated_at = now()
     where s.project_id = excluded.project_id
     returning s.*, (xmax = 0) as created`,
    [JSON.stringify(row)],
  );
  const r = rows[0];
  if (!r) return undefined;
  const { created, ...rest } = r;
  return { row: rest, created };
}

export interface ListFilter {
  projectIds: string[];
  name?: string | undefined;
  source?: string | undefined;
  dataType?: string | undefined;
  configId?: string | undefined;
  targetType?: string | undefined;
  requestId?: string | undefined;
  traceId?: string | undefined;
  spanId?: string | undefined;
  sessionId?: string | undefined;
  experimentId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  after: [string, string] | null;
  limit: number;
}

export function listScores(db: Knex, f: ListFilter) {
  const q = db<ScoreRecord>('scores').whereIn('project_id', f.projectIds);
  const eq: [string, string | undefined][] = [
    ['name', f.name],
    ['source', f.source],
    ['data_type', f.dataType],
    ['config_id', f.configId],
    ['target_type', f.targetType],
    ['request_id', f.requestId],
    ['trace_id', f.traceId],
    ['span_id', f.spanId],
    ['session_id', f.sessionId],
    ['experiment_id', f.experimentId],
  ];
  for (const [col, v] of eq) if (v !== undefined) q.andWhere(col, v);
  if (f.from) q.andWhere('created_at', '>=', f.from);
  if (f.to) q.andWhere('created_at', '<', f.to);
  if (f.after) q.andWhereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', f.after);
  return q
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
}

export const findScore = (db: Knex, projectIds: string[], id: string) =>
  db<ScoreRecord>('scores').whereIn('project_id', projectIds).andWhere({ id }).first();
export const deleteScore = (db: Knex, id: string) => db('scores').where({ id }).del();

/** Scores of requests or of traces (and their spans), for the request and trace reads. */
export const scoresOfRequests = (db: Knex, ids: string[]) =>
  db<ScoreRecord>('scores')
    .whereIn('request_id', ids)
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
export const scoresOfTrace = (db: Knex, projectId: string, traceId: string) =>
  db<ScoreRecord>('scores')
    .where({ project_id: projectId, trace_id: traceId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);

/** The project of an experiment's item run, when the experiment is in these projects. */
export async function experimentItemProjects(
  db: Knex,
  projectIds: string[],
  experimentId: string,
  itemId: string,
  repetition: number,
): Promise<string[]> {
  const rows = await db('experiment_items as i')
    .join('experiments as e', 'e.id', 'i.experiment_id')
    .whereIn('e.project_id', projectIds)
    .andWhere({ 'i.experiment_id': experimentId, 'i.item_id': itemId, 'i.repetition': repetition })
    .select('e.project_id');
  return projectsOf(rows);
}
