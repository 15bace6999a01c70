import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import { redact } from './redact';

export interface AuditEntry {
  orgId: string;
  actor: Principal;
  action: string;
  resourceType: string;
  resourceId: string | null;
  before?: unknown;
  after?: unknown;
}

/**
 * Appends one audit row, in the caller's transaction when given one, so the change and its record
 * commit together. Secrets in before/after are redacted by field name.
 */
export async function recordAudit(db: Knex | Knex.Transaction, e: AuditEntry): Promise<void> {
  const actor = e.actor;
  await db('audit_logs').insert({
    org_id: e.orgId,
    actor_type: actor.kind === 'user' ? 'user' : 'api_key',
    actor_id: actor.kind === 'user' ? actor.userId : actor.keyId,
    actor_label: actor.kind === 'user' ? (actor.email ?? actor.sub) : `api_key:${actor.keyId}`,
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    before: e.before === undefined ? null : JSON.stringify(redact(e.before)),
    after: e.after === undefined ? null : JSON.stringify(redact(e.after)),
  });
}
