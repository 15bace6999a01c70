import type { Knex } from 'knex';
import type { Role } from '../../auth/principal';

const VIEW = [
  'id',
  'org_id',
  'email',
  'role',
  'invited_by',
  'expires_at',
  'accepted_at',
  'accepted_by',
  'revoked_at',
  'created_at',
];

export interface InvitationRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  revoked_at: Date | null;
  created_at: Date;
}

export const listInvitations = (db: Knex, orgId: string) =>
  db('invitations').select(VIEW).where({ org_id: orgId }).orderBy('created_at', 'desc').limit(500) as Promise<
    InvitationRow[]
  >;

export const memberWithEmail = (trx: Knex.Transaction, orgId: string, email: string) =>
  trx('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.org_id', orgId)
    .whereRaw('lower(u.email) = ?', [email])
    .first('m.user_id');

/** Re-sending replaces: a still-pending invitation for the same email is revoked. */
export const revokePendingFor = (trx: Knex.Transaction, orgId: string, email: string) =>
  trx('invitations')
    .where({ org_id: orgId })
    .whereRaw('lower(email) = ?', [email])
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .update({ revoked_at: trx.fn.now() });

export const insertInvitation = async (
  trx: Knex.Transaction,
  row: { org_id: string; email: string; role: Role; token_hash: string; invited_by: string },
  ttlHours: number,
): Promise<InvitationRow> =>
  (
    await trx('invitations')
      .insert({ ...row, expires_at: trx.raw(`now() + make_interval(hours => ?)`, [ttlHours]) })
      .returning(VIEW)
  )[0];

/** One invitation, locked, by id within an organization, by id alone, or by token hash. */
export const lockInvitation = (
  trx: Knex.Transaction,
  by: { org_id: string; id: string } | { id: string } | { token_hash: string },
) => trx('invitations').select(VIEW).where(by).forUpdate().first() as Promise<InvitationRow | undefined>;

export const updateInvitation = async (
  trx: Knex.Transaction,
  id: string,
  patch: Record<string, unknown>,
): Promise<InvitationRow> => (await trx('invitations').where({ id }).update(patch).returning(VIEW))[0];

/** Pending, unexpired invitations addressed to an email, with the organization's name. */
export const pendingFor = (db: Knex, email: string) =>
  db('invitations as i')
    .join('organizations as o', 'o.id', 'i.org_id')
    .whereRaw('lower(i.email) = ?', [email])
    .whereNull('i.accepted_at')
    .whereNull('i.revoked_at')
    .where('i.expires_at', '>', db.fn.now())
    .select('i.id', 'i.org_id', 'o.name as org_name', 'i.role', 'i.expires_at', 'i.created_at');

/** Joins as the invited role; an existing member keeps theirs. */
export const joinOrganization = (trx: Knex.Transaction, orgId: string, userId: string, role: Role) =>
  trx('memberships').insert({ org_id: orgId, user_id: userId, role }).onConflict(['org_id', 'user_id']).ignore();
