/**
 * Who is calling, as a route contract sees it. Defined beside the contracts (not in src/auth/) because
 * the HTTP layer names roles and hands the principal to every handler, while src/auth/ builds on
 * src/http/ (its errors, ids): auth implements these types, http only declares them.
 */
export const ROLES = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export type ApiKeyScope = 'full' | 'public';

/** Who is calling: a signed-in user acting in one organization, or a project API key. */
export type Principal =
  | { kind: 'user'; userId: string; sub: string; email: string | null; orgId: string; role: Role }
  | { kind: 'api_key'; keyId: string; projectId: string; orgId: string; scope: ApiKeyScope };

/** A user authenticated by JWT, before (or without) an organization context. */
export interface AuthUser {
  userId: string;
  sub: string;
  email: string | null;
  emailVerified: boolean | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    authUser?: AuthUser;
  }
}
