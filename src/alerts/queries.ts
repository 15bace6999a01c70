import type { Knex } from 'knex';
import { isoSql } from '../http/pagination';
import type { GroupState } from './state';

type Conn = Knex | Knex.Transaction;

export interface RuleRow {
  id: string;
  org_id: string;
  project_id: string | null;
  name: string;
  type: string;
  operator: 'gt' | 'gte' | 'lt' | 'lte';
  threshold: number;
  warning_threshold: number | null;
  window_minutes: number;
  filter: Record<string, unknown>;
  group_by: string | null;
  min_requests: number;
  no_data: 'ok' | 'alert' | 'keep';
  cooldown_minutes: number;
  is_active: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  schedule_version: number | null;
  schedule_error: string | null;
}

export type RuleInsert = Omit<
  RuleRow,
  'id' | 'created_at' | 'updated_at' | 'version' | 'schedule_version' | 'schedule_error'
>;

const rules = (db: Conn) => db<RuleRow>('alert_rules');

export const listRuleRows = (db: Conn, orgId: string) =>
  rules(db)
    .where({ org_id: orgId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);

export function findRuleRow(
  db: Conn,
  orgId: string | null,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<RuleRow | undefined> {
  const q = rules(db).where({ id });
  if (orgId) q.andWhere({ org_id: orgId });
  if (opts.forUpdate) q.forUpdate();
  return q.first();
}

export async function insertRule(db: Conn, row: RuleInsert): Promise<RuleRow> {
  const [r] = await rules(db)
    .insert({ ...row, filter: JSON.stringify(row.filter) as never })
    .returning('*');
  return r!;
}

export async function updateRuleRow(db: Conn, id: string, changes: Partial<RuleInsert>): Promise<RuleRow> {
  const patch: Record<string, unknown> = { ...changes };
  if (changes.filter) patch.filter = JSON.stringify(changes.filter);
  const [r] = await rules(db)
    .where({ id })
    .update({ ...patch, version: db.raw('version + 1') } as never)
    .returning('*');
  return r!;
}

export const deleteRuleRow = (db: Conn, id: string) => rules(db).where({ id }).delete();

/** The schedule now matches `version` (a later edit leaves it out of date again), or why it could not be made to. */
export const markScheduleSynced = (db: Conn, id: string, version: number) =>
  db.raw(
    'update alert_rules set schedule_version = greatest(coalesce(schedule_version, 0), ?), ' +
      'schedule_error = null where id = ?',
    [version, id],
  );
export const markScheduleError = (db: Conn, id: string, error: string) =>
  db.raw('update alert_rules set schedule_error = ? where id = ?', [error.slice(0, 500), id]);

export const allRuleRows = (db: Conn) => rules(db).select('*').orderBy('id');

export async function projectIdsOf(db: Conn, orgId: string): Promise<string[]> {
  const rows = await db('projects').where({ org_id: orgId }).select('id');
  return rows.map((r: { id: string }) => r.id);
}

export interface StateRow extends GroupState {
  rule_id: string;
  group_key: string;
  last_evaluated_at: Date;
}

export const stateRows = (db: Conn, ruleId: string): Promise<StateRow[]> =>
  db('alert_states').where({ rule_id: ruleId });

export async function upsertStates(db: Conn, rows: StateRow[]): Promise<void> {
  if (!rows.length) return;
  await db('alert_states').insert(rows).onConflict(['rule_id', 'group_key']).merge();
}

/** Forgets a rule's states: all of them, or those of some groups. */
export function deleteStates(db: Conn, ruleId: string, groups?: string[]) {
  const q = db('alert_states').where({ rule_id: ruleId });
  if (groups) q.whereIn('group_key', groups);
  return q.delete();
}

export interface EventInsert {
  rule_id: string;
  org_id: string;
  kind: string;
  group_key: string;
  value: number | null;
  threshold: number | null;
  requests: number | null;
  notified: boolean;
  at: Date;
}
export async function insertEvents(
  db: Conn,
  rows: EventInsert[],
): Promise<{ id: string; kind: string; group_key: string }[]> {
  if (!rows.length) return [];
  return db('alert_events').insert(rows).returning(['id', 'kind', 'group_key']);
}

/** An alert_events row as selectEvents reads it: `cursor_at` is `at` to the microsecond, for the cursor. */
export interface EventRecord {
  id: string;
  kind: string;
  group_key: string;
  value: number | null;
  threshold: number | null;
  requests: number | string | null;
  notified: boolean;
  at: Date;
  cursor_at: string;
}

/** History newest first, keyset by (at, id). */
export function selectEvents(
  db: Conn,
  ruleId: string,
  limit: number,
  after?: [string, string],
): Promise<EventRecord[]> {
  const q = db('alert_events')
    .select(
      'id',
      'kind',
      'group_key',
      'value',
      'threshold',
      'requests',
      'notified',
      'at',
      db.raw(`${isoSql('at')} as cursor_at`),
    )
    .where({ rule_id: ruleId })
    .orderBy([
      { column: 'at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  if (after) q.andWhere(db.raw('(at, id) < (?::timestamptz, ?::uuid)', after));
  return q;
}
