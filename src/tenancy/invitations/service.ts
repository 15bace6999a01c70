import type { Knex } from 'knex';
import { recordAudit } from '../../audit/audit';
import type { AuthUser, Principal, Role } from '../../auth/principal';
import { membershipRole } from '../../auth/queries';
import { conflict, forbidden, HttpError, notFound } from '../../http/errors';
import { randomBase62, sha256Hex } from '../../util/random';
import * as q from './queries';
import type { InvitationRow } from './queries';

/** Invitation tokens: `inv_<43 base62>`, shown once, stored as SHA-256. */
const INVITATION_TOKEN_PREFIX = 'inv_';
const TOKEN_FORMAT = /^inv_[0-9A-Za-z]{43}$/;

function invitationStatus(r: Pick<InvitationRow, 'accepted_at' | 'revoked_at' | 'expires_at'>, now = new Date()) {
  if (r.accepted_at) return 'accepted';
  if (r.revoked_at) return 'revoked';
  if (r.expires_at <= now) return 'expired';
  return 'pending';
}
const view = (r: InvitationRow) => ({ ...r, status: invitationStatus(r) });

export async function listInvitations(db: Knex, orgId: string, status?: string) {
  const all = (await q.listInvitations(db, orgId)).map(view);
  return status ? all.filter((r) => r.status === status) : all;
}

/**
 * Invites an email with a role. A still-pending invitation for the same email is revoked and
 * replaced (re-sending); inviting an existing member is a 409.
 */
export async function createInvitation(
  db: Knex,
  actor: Principal & { kind: 'user' },
  input: { email: string; role: Role; ttlHours: number },
) {
  const email = input.email.trim().toLowerCase();
  const token = INVITATION_TOKEN_PREFIX + randomBase62(43);
  return db.transaction(async (trx) => {
    if (await q.memberWithEmail(trx, actor.orgId, email))
      throw conflict('This email already belongs to a member of the organization', 'already_member');
    await q.revokePendingFor(trx, actor.orgId, email);
    const row = await q.insertInvitation(
      trx,
      { org_id: actor.orgId, email, role: input.role, token_hash: sha256Hex(token), invited_by: actor.userId },
      input.ttlHours,
    );
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'invitation.created',
      resourceType: 'invitation',
      resourceId: row.id,
      after: row,
    });
    return { ...view(row), token };
  });
}

export async function revokeInvitation(db: Knex, actor: Principal, id: string) {
  return db.transaction(async (trx) => {
    const before = await q.lockInvitation(trx, { org_id: actor.orgId, id });
    if (!before) throw notFound('Invitation');
    if (before.accepted_at) throw conflict('This invitation was already accepted', 'invitation_already_accepted');
    if (before.revoked_at) return view(before);
    const row = await q.updateInvitation(trx, id, { revoked_at: trx.fn.now() });
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'invitation.revoked',
      resourceType: 'invitation',
      resourceId: id,
      before,
      after: row,
    });
    return view(row);
  });
}

/** Pending invitations addressed to the caller's email. */
export async function listPendingInvitationsFor(db: Knex, user: AuthUser) {
  return user.email ? q.pendingFor(db, user.email.toLowerCase()) : [];
}

/**
 * Accepts an invitation (found by token, or by id for the addressee) as the signed-in user whose
 * email matches. Makes them a member with the invited role (an existing member keeps their role).
 */
export async function acceptInvitation(db: Knex, user: AuthUser, by: { token: string } | { id: string }) {
  if ('token' in by && !TOKEN_FORMAT.test(by.token)) throw notFound('Invitation');
  return db.transaction(async (trx) => {
    const inv = await q.lockInvitation(trx, 'token' in by ? { token_hash: sha256Hex(by.token) } : { id: by.id });
    if (!inv) throw notFound('Invitation');
    const emailMatches = !!user.email && user.email.toLowerCase() === inv.email.toLowerCase();
    // By id, only the addressee may even learn the invitation exists.
    if (!('token' in by) && !emailMatches) throw notFound('Invitation');
    if (!emailMatches) throw forbidden('This invitation is for a different email address', 'invitation_email_mismatch');
    if (user.emailVerified === false)
      throw forbidden('Your identity provider has not verified your email address', 'email_not_verified');
    const status = invitationStatus(inv);
    if (status === 'accepted') throw conflict('This invitation was already accepted', 'invitation_already_accepted');
    if (status === 'revoked') throw new HttpError(410, 'invitation_revoked', 'This invitation was revoked');
    if (status === 'expired')
      throw new HttpError(410, 'invitation_expired', 'This invitation has expired; ask an admin for a new one');

    await q.joinOrganization(trx, inv.org_id, user.userId, inv.role);
    const row = await q.updateInvitation(trx, inv.id, { accepted_at: trx.fn.now(), accepted_by: user.userId });
    const role = (await membershipRole(trx, inv.org_id, user.userId))!;
    const actor: Principal = {
      kind: 'user',
      userId: user.userId,
      sub: user.sub,
      email: user.email,
      orgId: inv.org_id,
      role,
    };
    await recordAudit(trx, {
      orgId: inv.org_id,
      actor,
      action: 'invitation.accepted',
      resourceType: 'invitation',
      resourceId: inv.id,
      after: row,
    });
    await recordAudit(trx, {
      orgId: inv.org_id,
      actor,
      action: 'member.added',
      resourceType: 'member',
      resourceId: user.userId,
      after: { user_id: user.userId, role },
    });
    return { invitation: view(row), organization_id: inv.org_id, role };
  });
}
