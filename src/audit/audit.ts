import type { Knex } from 'knex';
import { type Principal, actorLabel } from '../auth/principal';
import { cursorCodec, pageOf } from '../http/pagination';
import * as q from './queries';
import { redact } from './redact';
import type { AuditLogsQuery } from './schemas';

export interface AuditEntry {
  orgId: string;
  actor: Principal;
  /** `<resource>.<past-tense verb>`, e.g. `webhook.created`. */
  action: string;
  resourceType: string;
  resourceId: string | null;
  before?: unknown;
  after?: unknown;
}

/**
 * Appends one audit row, in the caller's transaction when given one, so the change and its record
 * commit together. Secrets in before/after are redacted by field name. The one audit writer.
 */
export async function recordAudit(db: Knex | Knex.Transaction, e: AuditEntry): Promise<void> {
  const actor = e.actor;
  await q.insertAuditRow(db, {
    org_id: e.orgId,
    actor_type: actor.kind === 'user' ? 'user' : 'api_key',
    actor_id: actor.kind === 'user' ? actor.userId : actor.keyId,
    actor_label: actorLabel(actor),
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    before: e.before === undefined ? null : JSON.stringify(redact(e.before)),
    after: e.after === undefined ? null : JSON.stringify(redact(e.after)),
  });
}

/** An audit row written by the service itself (an alert firing), with `actor_type: system`. */
export async function recordSystemAudit(
  db: Knex | Knex.Transaction,
  e: Omit<AuditEntry, 'actor'> & { label: string },
): Promise<void> {
  await q.insertAuditRow(db, {
    org_id: e.orgId,
    actor_type: 'system',
    actor_id: null,
    actor_label: e.label,
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    before: e.before === undefined ? null : JSON.stringify(redact(e.before)),
    after: e.after === undefined ? null : JSON.stringify(redact(e.after)),
  });
}

const cursor = cursorCodec('ts', 'uuid');

/** One page of the organization's audit trail, newest first. */
export async function listAuditLogs(db: Knex, orgId: string, { limit, cursor: raw, ...filter }: AuditLogsQuery) {
  const after = raw ? (cursor.decode(raw) as [string, string]) : undefined;
  const rows = await q.selectAuditLogs(db, orgId, { ...filter, after }, limit + 1);
  return pageOf(
    rows,
    limit,
    cursor,
    (r) => [r.cursor_at, r.id],
    ({ cursor_at: _omit, ...row }) => row,
  );
}
