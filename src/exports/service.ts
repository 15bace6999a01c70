import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import { type Principal, actorLabel } from '../auth/principal';
import type { Config } from '../config';
import { applySavedFilter } from '../saved-filters/service';
import { badRequest, forbidden, HttpError, notFound } from '../http/errors';
import type { Temporal } from '../temporal/client';
import { searchAttributes } from '../temporal/names';
import { exportSummary } from '../temporal/summaries';
import * as q from './queries';
import { RESOURCES, type ExportResource } from './resources';
import type { CreateExportInput, ExportView } from './schemas';
import type { ExportStore } from './storage';
import { CONTENT_TYPES, type Format } from './writers';
import { isoOrNull, isoText } from '../db/convert';
import type { Scope } from '../http/route';

/** Exports: each a Temporal workflow `export-<id>` writing one file (docs/exports.md). */
export interface ExportDeps {
  db: Knex;
  temporal: Temporal;
  store: ExportStore;
  config: Config;
}
const START_WAIT_MS = 5_000;

export const exportTaskQueue = (c: Config) => c.EXPORT_TASK_QUEUE ?? `${c.TEMPORAL_TASK_QUEUE}-exports`;

const sign = (key: string, id: string, expires: number) =>
  createHmac('sha256', key).update(`${id}.${expires}`).digest('base64url');

/** The view, with a freshly signed link for a completed export (valid EXPORT_LINK_TTL_MINUTES, never past the file). */
function toView(r: q.ExportRow, base: string, linkTtlMinutes: number, now = Date.now()): ExportView {
  const total = r.estimated_total === null ? null : Number(r.estimated_total);
  const rows = Number(r.rows_written);
  const ready = r.status === 'completed';
  // A completed export has its expiry; without one the link has expired (epoch 0, as new Date(null) gave).
  const fileExp = r.expires_at ? r.expires_at.getTime() : 0;
  const linkExp = ready ? Math.floor(Math.min(now + linkTtlMinutes * 60_000, fileExp) / 1000) : null;
  return {
    id: r.id,
    project_ids: r.project_ids,
    resource: r.resource,
    format: r.format,
    filter: r.filter,
    columns: r.columns,
    include_bodies: r.include_bodies,
    status: r.status,
    rows_written: rows,
    estimated_total: total,
    progress: ready ? 1 : total ? Math.min(1, Math.round((rows / total) * 1e4) / 1e4) : total === 0 ? 0 : null,
    bytes: r.bytes === null ? null : Number(r.bytes),
    workflow_id: r.workflow_id,
    error: r.error ?? null,
    created_by: r.created_by ?? null,
    created_at: isoText(r.created_at),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
    expires_at: isoOrNull(r.expires_at),
    download_url: ready ? `${base}/api/v1/exports/${r.id}/download` : null,
    signed_url: linkExp
      ? `${base}/api/v1/exports/${r.id}/file?expires=${linkExp}&signature=${sign(r.link_key, r.id, linkExp)}`
      : null,
    signed_url_expires_at: linkExp ? new Date(linkExp * 1000).toISOString() : null,
  };
}

/** The filter as the list route would take it (a saved filter merged in), checked by the list's own schema. */
async function resolveFilter(
  db: Knex,
  actor: Principal,
  scope: Scope,
  resource: ExportResource,
  name: string,
  input: CreateExportInput,
) {
  let raw: Record<string, unknown> = input.filter;
  if (input.saved_filter_id) {
    if (!resource.view) throw badRequest(`saved filters do not apply to ${name} exports`, 'saved_filter_view_mismatch');
    raw = await applySavedFilter(db, actor, scope.projectIds, resource.view, {
      ...input.filter,
      saved_filter_id: input.saved_filter_id,
    });
  }
  const parsed = resource.filter.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'filter'}: ${i.message}`).join('; ');
    throw badRequest(`filter is not valid for ${name}: ${issues}`, 'invalid_filter');
  }
  const { project_id: _p, ...filter } = parsed.data as Record<string, unknown>;
  return JSON.parse(JSON.stringify(filter)) as Record<string, unknown>;
}

function resolveColumns(resource: ExportResource, input: CreateExportInput) {
  if (!input.columns) return resource.columns.filter((c) => input.include_bodies || !c.body).map((c) => c.name);
  const unknown = input.columns.filter((n) => !resource.columns.some((c) => c.name === n));
  if (unknown.length) {
    const known = resource.columns.map((c) => c.name).join(', ');
    throw badRequest(`unknown column(s) ${unknown.join(', ')}; ${input.resource} has ${known}`, 'unknown_column');
  }
  const bodies = input.columns.filter((n) => resource.columns.find((c) => c.name === n)!.body);
  if (bodies.length && !input.include_bodies)
    throw badRequest(`column(s) ${bodies.join(', ')} need include_bodies: true`, 'bodies_not_included');
  return [...new Set(input.columns)];
}

/** Checks the request, records the export and starts its workflow; Temporal unreachable → failed and 503. */
export async function createExport(
  deps: ExportDeps,
  actor: Principal,
  scope: Scope,
  input: CreateExportInput,
  base: string,
) {
  const resource: ExportResource = RESOURCES[input.resource];
  const filter = await resolveFilter(deps.db, actor, scope, resource, input.resource, input);
  const columns = resolveColumns(resource, input);
  // One row through the list's own code: a bad filter combination or a missing dataset answers now.
  await resource.page(deps.db, scope.projectIds, filter, null, 1, false);
  const id = randomUUID();
  const workflowId = `export-${id}`;
  await deps.db.transaction(async (trx) => {
    await trx('exports').insert({
      id,
      org_id: scope.orgId,
      project_ids: scope.projectIds,
      resource: input.resource,
      format: input.format,
      filter: JSON.stringify(filter),
      columns,
      include_bodies: input.include_bodies,
      workflow_id: workflowId,
      link_key: randomBytes(32).toString('base64url'),
      created_by: actorLabel(actor),
      created_by_user: actor.kind === 'user' ? actor.userId : null,
    });
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'export.created',
      resourceType: 'export',
      resourceId: id,
      after: { resource: input.resource, format: input.format, filter, columns, include_bodies: input.include_bodies },
    });
  });
  try {
    await deps.temporal.connection.withDeadline(Date.now() + START_WAIT_MS, () =>
      deps.temporal.client.workflow.start('exportWorkflow', {
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        workflowId,
        args: [id, exportTaskQueue(deps.config)],
        typedSearchAttributes: [
          { key: searchAttributes.OrganizationId, value: scope.orgId },
          ...(scope.projectIds.length === 1 ? [{ key: searchAttributes.ProjectId, value: scope.projectIds[0]! }] : []),
        ],
        memo: { exportId: id, resource: input.resource, format: input.format },
        staticSummary: exportSummary({
          resource: input.resource,
          format: input.format,
          includeBodies: input.include_bodies,
        }),
      }),
    );
  } catch (err) {
    await q.setExport(deps.db, id, {
      status: 'failed',
      error: `could not start the workflow: ${(err as Error).message}`.slice(0, 1000),
      finished_at: deps.db.fn.now(),
    });
    throw new HttpError(
      503,
      'temporal_unavailable',
      'Temporal is unreachable: the export was not started (it is recorded as failed); try again',
    );
  }
  return toView((await q.exportById(deps.db, id))!, base, deps.config.EXPORT_LINK_TTL_MINUTES);
}

async function requireExport(db: Knex, scope: Scope, id: string) {
  const r = await q.findExport(db, scope.orgId, scope.projectIds, id);
  if (!r) throw notFound('Export');
  return r;
}
export const getExport = async (deps: ExportDeps, scope: Scope, id: string, base: string) =>
  toView(await requireExport(deps.db, scope, id), base, deps.config.EXPORT_LINK_TTL_MINUTES);
export const listExports = async (deps: ExportDeps, scope: Scope, limit: number, base: string) =>
  (await q.listExports(deps.db, scope.orgId, scope.projectIds, limit)).map((r) =>
    toView(r, base, deps.config.EXPORT_LINK_TTL_MINUTES),
  );

/** Who may cancel or delete: whoever started it, or an admin or editor. */
function mayChange(actor: Principal, r: q.ExportRow) {
  if (actor.kind === 'user' && (actor.userId === r.created_by_user || actor.role !== 'viewer')) return;
  throw forbidden('Only who started the export, an admin or an editor may cancel or delete it', 'not_export_owner');
}

async function stopWorkflow(deps: ExportDeps, r: q.ExportRow) {
  if (!['pending', 'running'].includes(r.status)) return;
  try {
    await deps.temporal.connection.withDeadline(Date.now() + START_WAIT_MS, () =>
      deps.temporal.client.workflow.getHandle(r.workflow_id).cancel(),
    );
  } catch (err) {
    if ((err as Error).name !== 'WorkflowNotFoundError')
      throw new HttpError(503, 'temporal_unavailable', `Temporal is unreachable: ${(err as Error).message}`);
  }
  await q.transition(deps.db, r.id, ['pending', 'running'], { status: 'cancelled', finished_at: deps.db.fn.now() });
}

/** Cancels a running export (its workflow removes the parts); a finished one is answered as it is. */
export async function cancelExport(deps: ExportDeps, actor: Principal, scope: Scope, id: string, base: string) {
  const r = await requireExport(deps.db, scope, id);
  mayChange(actor, r);
  if (['pending', 'running'].includes(r.status)) {
    await stopWorkflow(deps, r);
    await recordAudit(deps.db, {
      orgId: r.org_id,
      actor,
      action: 'export.cancelled',
      resourceType: 'export',
      resourceId: id,
      before: { status: r.status },
      after: { status: 'cancelled' },
    });
  }
  return getExport(deps, scope, id, base);
}

/** Deletes the export's file and record (a running export is cancelled first). */
export async function deleteExport(deps: ExportDeps, actor: Principal, scope: Scope, id: string) {
  const r = await requireExport(deps.db, scope, id);
  mayChange(actor, r);
  await stopWorkflow(deps, r);
  await deps.store.deletePrefix(id);
  await deps.db('exports').where({ id }).delete();
  await recordAudit(deps.db, {
    orgId: r.org_id,
    actor,
    action: 'export.deleted',
    resourceType: 'export',
    resourceId: id,
    before: { resource: r.resource, format: r.format, status: r.status },
  });
  return { id, deleted: true as const };
}

async function stream(deps: ExportDeps, r: q.ExportRow, res: Response) {
  if (r.status === 'expired')
    throw new HttpError(410, 'export_expired', 'This export’s file has expired and was deleted; start a new export');
  if (r.status !== 'completed' || !r.storage_key)
    throw new HttpError(
      409,
      'export_not_ready',
      `The export is ${r.status}; its file is available once it is completed`,
    );
  const body = await deps.store.read(r.storage_key);
  if (!body) throw new HttpError(410, 'export_expired', 'This export’s file is gone; start a new export');
  res.status(200).set({
    'Content-Type': CONTENT_TYPES[r.format as Format],
    'Content-Disposition': `attachment; filename="${r.resource}-${r.id}.${r.format}"`,
    ...(r.bytes !== null ? { 'Content-Length': String(r.bytes) } : {}),
    'Cache-Control': 'private, no-store',
  });
  await pipeline(body, res);
}

export const download = async (deps: ExportDeps, scope: Scope, id: string, res: Response) =>
  stream(deps, await requireExport(deps.db, scope, id), res);

/** The signed link: a bad signature and an unknown export are the same 404; a link past its time is 410. */
export async function downloadSigned(deps: ExportDeps, id: string, expires: number, signature: string, res: Response) {
  const r = await q.exportById(deps.db, id);
  const want = r ? Buffer.from(sign(r.link_key, id, expires)) : null;
  const got = Buffer.from(signature);
  if (!r || !want || want.length !== got.length || !timingSafeEqual(want, got)) throw notFound('Export');
  if (expires * 1000 < Date.now())
    throw new HttpError(
      410,
      'link_expired',
      'This download link has expired; ask for a new one (GET /api/v1/exports/:id)',
    );
  await stream(deps, r, res);
}
