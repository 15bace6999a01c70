import type { Client } from '@temporalio/client';
import type { Principal } from '../auth/principal';
import type { Auth } from '../auth/middleware';
import type { AnalyticsStore } from '../analytics/store';
import { recordAudit } from '../audit/audit';
import type { AppContext } from '../context';
import { isoText, numOrNull } from '../db/convert';
import type { Db } from '../db/knex';
import { badRequest, notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import type { Logger } from '../logger';
import { previewEvaluation } from './evaluate';
import { requestFilterOf } from './filter';
import * as q from './queries';
import { deleteRuleSchedule, intervalMinutes, ruleScheduleId, syncRuleSchedule } from './schedules';
import { NON_REQUEST_FILTER_KEYS, type AlertView, type CreateAlertInput, type UpdateAlertInput } from './schemas';
import { measureSources, type AlertType } from './sources';

export interface AlertDeps {
  db: Db;
  store: AnalyticsStore;
  auth: Auth;
  temporal: { client: Client; withDeadline: <T>(ms: number, fn: () => Promise<T>) => Promise<T> };
  taskQueue: string;
  logger: Logger;
  /** After Temporal failed to answer, writes skip it until this instant (ms) and answer `pending` at once. */
  temporalBackoff: { until: number };
}

export const alertDeps = (ctx: AppContext, store: AnalyticsStore): AlertDeps => ({
  db: ctx.db,
  store,
  auth: ctx.auth,
  temporal: {
    // Read on use: the client (and the SDK behind it) is made on first use (src/temporal/client.ts).
    get client() {
      return ctx.temporal.client;
    },
    withDeadline: (ms, fn) => ctx.temporal.connection.withDeadline(Date.now() + ms, fn),
  },
  taskQueue: ctx.config.TEMPORAL_TASK_QUEUE,
  logger: ctx.logger,
  temporalBackoff: { until: 0 },
});

/** How long a write waits for Temporal before answering with the schedule `pending` (the reconcile finishes it). */
const TEMPORAL_WAIT_MS = 3_000;
/** After a failure, writes do not wait on Temporal again for this long (an outage costs one slow write, not all). */
const TEMPORAL_BACKOFF_MS = 15_000;

function toView(deps: AlertDeps, r: q.RuleRow, states?: q.StateRow[]): AlertView {
  return {
    id: r.id,
    name: r.name,
    project_id: r.project_id,
    type: r.type,
    operator: r.operator,
    threshold: r.threshold,
    warning_threshold: r.warning_threshold,
    window_minutes: r.window_minutes,
    filter: r.filter,
    group_by: r.group_by,
    min_requests: r.min_requests,
    no_data: r.no_data,
    cooldown_minutes: r.cooldown_minutes,
    is_active: r.is_active,
    created_at: isoText(r.created_at),
    updated_at: isoText(r.updated_at),
    schedule: {
      id: ruleScheduleId(deps.taskQueue, r.id),
      interval_minutes: intervalMinutes(r.window_minutes),
      status: r.schedule_version === r.version ? 'synced' : 'pending',
      error: r.schedule_version === r.version ? null : r.schedule_error,
    },
    ...(states
      ? {
          states: states.map((s) => ({
            group: s.group_key,
            state: s.state,
            since: isoText(s.since),
            no_data: s.no_data,
            last_value: s.last_value,
          })),
        }
      : {}),
  };
}

async function requireRule(
  db: Db | Parameters<typeof q.findRuleRow>[0],
  orgId: string,
  id: string,
  forUpdate = false,
): Promise<q.RuleRow> {
  const row = await q.findRuleRow(db, orgId, id, { forUpdate });
  if (!row) throw notFound('Alert rule');
  return row;
}

/** Cross-field rules the schema cannot see; a project of another organization is a 404. */
async function check(
  deps: AlertDeps,
  actor: Principal,
  r: Pick<q.RuleRow, 'type' | 'group_by' | 'filter' | 'project_id' | 'operator' | 'threshold' | 'warning_threshold'>,
) {
  const src = measureSources[r.type as AlertType];
  if (r.group_by && !src.groupable)
    throw badRequest(
      `type ${r.type} does not take group_by ` +
        `(${r.type === 'cost_per_user' ? 'it reports the worst end user' : 'it counts new rows of the organization'})`,
      'invalid_group_by',
    );
  requestFilterOf(r.filter as never);
  const keys = Object.keys((r.filter ?? {}) as object);
  const foreign = src.filterKeys
    ? keys.filter((k) => !src.filterKeys!.includes(k))
    : keys.filter((k) => (NON_REQUEST_FILTER_KEYS as readonly string[]).includes(k));
  if (foreign.length)
    throw badRequest(
      `type ${r.type} does not take filter ${foreign.join(', ')}` +
        (src.filterKeys ? ` (it takes ${src.filterKeys.join(', ')})` : ''),
      'invalid_filter',
    );
  if (r.project_id) await deps.auth.projectScope(actor, r.project_id);
  if (r.warning_threshold !== null) {
    const up = r.operator === 'gt' || r.operator === 'gte';
    if (up ? r.warning_threshold > r.threshold : r.warning_threshold < r.threshold)
      throw badRequest(
        'warning_threshold must be reached before threshold ' +
          `(${up ? 'at most' : 'at least'} ${r.threshold} with ${r.operator})`,
        'invalid_threshold',
      );
  }
}

/**
 * After the rule committed: make its schedule match (or delete it). Temporal being down never fails
 * the request: the rule stays `pending` with the error, and the reconcile finishes the job.
 */
async function syncSchedule(
  deps: AlertDeps,
  rule: q.RuleRow | { id: string; deleted: true },
): Promise<q.RuleRow | undefined> {
  try {
    if (Date.now() < deps.temporalBackoff.until) throw new Error('not tried: it failed moments ago');
    if ('deleted' in rule) {
      await deps.temporal.withDeadline(TEMPORAL_WAIT_MS, () =>
        deleteRuleSchedule(deps.temporal.client, deps.taskQueue, rule.id),
      );
      return undefined;
    }
    await deps.temporal.withDeadline(TEMPORAL_WAIT_MS, () =>
      syncRuleSchedule(deps.temporal.client, deps.taskQueue, rule),
    );
    await q.markScheduleSynced(deps.db, rule.id, rule.version);
  } catch (err) {
    if (Date.now() >= deps.temporalBackoff.until) deps.temporalBackoff.until = Date.now() + TEMPORAL_BACKOFF_MS;
    deps.logger.warn({ err, ruleId: rule.id }, 'alert rule saved; its Temporal schedule will be reconciled later');
    if (!('deleted' in rule))
      await q.markScheduleError(deps.db, rule.id, `Temporal unavailable: ${(err as Error).message}`);
  }
  return 'deleted' in rule ? undefined : q.findRuleRow(deps.db, null, rule.id);
}

export const listAlerts = async (deps: AlertDeps, orgId: string) =>
  (await q.listRuleRows(deps.db, orgId)).map((r) => toView(deps, r));

export async function getAlert(deps: AlertDeps, orgId: string, id: string): Promise<AlertView> {
  const r = await requireRule(deps.db, orgId, id);
  return toView(deps, r, await q.stateRows(deps.db, id));
}

export async function createAlert(deps: AlertDeps, actor: Principal, input: CreateAlertInput): Promise<AlertView> {
  const row: q.RuleInsert = {
    org_id: actor.orgId,
    project_id: input.project_id ?? null,
    name: input.name,
    type: input.type,
    operator: input.operator,
    threshold: input.threshold,
    warning_threshold: input.warning_threshold ?? null,
    window_minutes: input.window_minutes,
    filter: input.filter ?? {},
    group_by: input.group_by ?? null,
    min_requests: input.min_requests ?? 0,
    no_data: input.no_data ?? 'ok',
    cooldown_minutes: input.cooldown_minutes ?? 60,
    is_active: input.is_active ?? true,
    created_by: actor.kind === 'user' ? actor.userId : null,
  };
  await check(deps, actor, row);
  const created = await deps.db.transaction(async (trx) => {
    const r = await q.insertRule(trx, row);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'alert.created',
      resourceType: 'alert',
      resourceId: r.id,
      after: toView(deps, r),
    });
    return r;
  });
  return toView(deps, (await syncSchedule(deps, created)) ?? created);
}

/** Fields whose change makes earlier per-group states meaningless (another measure or other groups). */
const RESETS = ['type', 'group_by', 'filter', 'project_id'] as const;

export async function updateAlert(
  deps: AlertDeps,
  actor: Principal,
  id: string,
  patch: UpdateAlertInput,
): Promise<AlertView> {
  const updated = await deps.db.transaction(async (trx) => {
    const before = await requireRule(trx, actor.orgId, id, true);
    const changes = Object.fromEntries(
      Object.entries(patch).filter(([, v]) => v !== undefined),
    ) as Partial<q.RuleInsert>;
    await check(deps, actor, { ...before, ...changes });
    const after = await q.updateRuleRow(trx, id, changes);
    if (RESETS.some((k) => k in changes)) await q.deleteStates(trx, id);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'alert.updated',
      resourceType: 'alert',
      resourceId: id,
      before: toView(deps, before),
      after: toView(deps, after),
    });
    return after;
  });
  return toView(deps, (await syncSchedule(deps, updated)) ?? updated);
}

export async function deleteAlert(deps: AlertDeps, actor: Principal, id: string): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const current = await requireRule(trx, actor.orgId, id, true);
    await q.deleteRuleRow(trx, id);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'alert.deleted',
      resourceType: 'alert',
      resourceId: id,
      before: toView(deps, current),
    });
  });
  await syncSchedule(deps, { id, deleted: true });
}

const cursor = cursorCodec('ts', 'uuid');

export async function listEvents(deps: AlertDeps, orgId: string, id: string, p: { limit: number; cursor?: string }) {
  await requireRule(deps.db, orgId, id);
  const after = p.cursor ? (cursor.decode(p.cursor) as [string, string]) : undefined;
  const rows = await q.selectEvents(deps.db, id, p.limit + 1, after);
  return pageOf(
    rows,
    p.limit,
    cursor,
    (r) => [r.cursor_at, r.id],
    (r) => ({
      id: r.id,
      kind: r.kind,
      group: r.group_key,
      value: r.value,
      threshold: r.threshold,
      requests: numOrNull(r.requests),
      notified: r.notified,
      at: isoText(r.at),
    }),
  );
}

export async function evaluateNow(deps: AlertDeps, orgId: string, id: string) {
  return previewEvaluation(deps, await requireRule(deps.db, orgId, id));
}
