import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { AuthUser, Principal, Role } from '../auth/principal';
import { conflict, forbidden, HttpError, notFound } from '../http/errors';
import { randomBase62, sha256Hex } from '../keys/random';

/** Invitation tokens: `inv_<43 base62>`, shown once, stored as SHA-256. */
export const INVITATION_TOKEN_PREFIX = 'inv_';
const TOKEN_FORMAT = /^inv_[0-9A-Za-z]{43}$/;

const VIEW = ['id', 'org_id', 'email', 'role', 'invited_by', 'expires_at', 'accepted_at', 'accepted_by', 'revoked_at', 'created_at'];

type InvitationRow = {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
};

export function invitationStatus(r: Pick<InvitationRow, 'accepted_at' | 'revoked_at' | 'expires_at'>, now = new Date()) {
  if (r.accepted_at) return 'accepted';
  if (r.revoked_at) return 'revoked';
  if (r.expires_at <= now) return 'expired';
  return 'pending';
}
const view = (r: Record<string, any>) => ({ ...r, status: invitationStatus(r as InvitationRow) });

export async function listInvitations(db: Knex, orgId: string, status?: string) {
  const rows = await db('invitations').select(VIEW).where({ org_id: orgId }).orderBy('created_at', 'desc').limit(500);
  const all = rows.map(view);
  return status ? all.filter((r) => r.status === status) : all;
}

/**
 * Invites an email with a role. A still-pending invitation for the same email is revoked and
 * replaced (re-sending); inviting an existing member is a 409.
 */
export async function createInvitation(db: Knex, actor: Principal & { kind: 'user' }, input: { email: string; role: Role; ttlHours: number }) {
  const email = input.email.trim().toLowerCase();
  const token = INVITATION_TOKEN_PREFIX + randomBase62(43);
  return db.transaction(async (trx) => {
    const member = await trx('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('m.org_id', actor.orgId)
      .whereRaw('lower(u.email) = ?', [email])
      .first('m.user_id');
    if (member) throw conflict('This email already belongs to a member of the organization', 'already_member');
    await trx('invitations')
      .where({ org_id: actor.orgId })
      .whereRaw('lower(email) = ?', [email])
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() });
    const [row] = await trx('invitations')
      .insert({
        org_id: actor.orgId,
        email,
        role: input.role,
        token_hash: sha256Hex(token),
        invited_by: actor.userId,
        expires_at: trx.raw(`now() + make_interval(hours => ?)`, [input.ttlHours]),
      })
      .returning(VIEW);
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'invitation.created', resourceType: 'invitation', resourceId: row.id, after: row });
    return { ...view(row), token };
  });
}

export async function revokeInvitation(db: Knex, actor: Principal & { kind: 'user' }, id: string) {
  return db.transaction(async (trx) => {
    const before = await trx('invitations').select(VIEW).where({ org_id: actor.orgId, id }).forUpdate().first();
    if (!before) throw notFound('Invitation');
    if (before.accepted_at) throw conflict('This invitation was already accepted', 'invitation_already_accepted');
    if (before.revoked_at) return view(before);
    const [row] = await trx('invitations').where({ id }).update({ revoked_at: trx.fn.now() }).returning(VIEW);
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'invitation.revoked', resourceType: 'invitation', resourceId: id, before, after: row });
    return view(row);
  });
}

/** Pending invitations addressed to the caller's email. */
export async function listPendingInvitationsFor(db: Knex, user: AuthUser) {
  if (!user.email) return [];
  const rows = await db('invitations as i')
    .join('organizations as o', 'o.id', 'i.org_id')
    .whereRaw('lower(i.email) = ?', [user.email.toLowerCase()])
    .whereNull('i.accepted_at')
    .whereNull('i.revoked_at')
    .where('i.expires_at', '>', db.fn.now())
    .select('i.id', 'i.org_id', 'o.name as org_name', 'i.role', 'i.expires_at', 'i.created_at');
  return rows;
}

/**
 * Accepts an invitation (found by token, or by id for the addressee) as the signed-in user whose
 * email matches. Makes them a member with the invited role (an existing member keeps their role).
 */
export async function acceptInvitation(db: Knex, user: AuthUser, by: { token: string } | { id: string }) {
  return db.transaction(async (trx) => {
    let q = trx('invitations').select([...VIEW, 'token_hash']).forUpdate();
    if ('token' in by) {
      if (!TOKEN_FORMAT.test(by.token)) throw notFound('Invitation');
      q = q.where({ token_hash: sha256Hex(by.token) });
    } else q = q.where({ id: by.id });
    const inv = await q.first();
    if (!inv) throw notFound('Invitation');
    const emailMatches = !!user.email && user.email.toLowerCase() === inv.email.toLowerCase();
    // By id, only the addressee may even learn the invitation exists.
    if (!('token' in by) && !emailMatches) throw notFound('Invitation');
    if (!emailMatches) throw forbidden('This invitation is for a different email address', 'invitation_email_mismatch');
    if (user.emailVerified === false) throw forbidden('Your identity provider has not verified your email address', 'email_not_verified');
    const status = invitationStatus(inv);
    if (status === 'accepted') throw conflict('This invitation was already accepted', 'invitation_already_accepted');
    if (status === 'revoked') throw new HttpError(410, 'invitation_revoked', 'This invitation was revoked');
    if (status === 'expired') throw new HttpError(410, 'invitation_expired', 'This invitation has expired; ask an admin for a new one');

    await trx('memberships').insert({ org_id: inv.org_id, user_id: user.userId, role: inv.role }).onConflict(['org_id', 'user_id']).ignore();
    const [row] = await trx('invitations').where({ id: inv.id }).update({ accepted_at: trx.fn.now(), accepted_by: user.userId }).returning(VIEW);
    const membership = await trx('memberships').select('role').where({ org_id: inv.org_id, user_id: user.userId }).first();
    const actor: Principal = { kind: 'user', userId: user.userId, sub: user.sub, email: user.email, orgId: inv.org_id, role: membership.role };
    await recordAudit(trx, { orgId: inv.org_id, actor, action: 'invitation.accepted', resourceType: 'invitation', resourceId: inv.id, after: row });
    await recordAudit(trx, { orgId: inv.org_id, actor, action: 'member.added', resourceType: 'member', resourceId: user.userId, after: { user_id: user.userId, role: membership.role } });
    return { invitation: view(row), organization_id: inv.org_id, role: membership.role as Role };
  });
}
