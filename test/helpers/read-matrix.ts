import type { TestApp } from './app';
import { api, mintJwt, type SeededTenant } from './auth';

/**
 * The role matrix of routes under the `read` scheme (the spec's "JWT or API key"; docs/auth.md):
 * no or bad credentials 401; a revoked key 401; a full key and every JWT role may read; a public
 * key may read but not write (403); `write` routes also refuse viewers (403); another
 * organization's admin naming this organization gets 404, and so does this tenant's caller on
 * another organization's resource ids (`foreignPath`).
 */
export type ReadIdentity =
  | 'none'
  | 'expired'
  | 'garbage'
  | 'revoked_key'
  | 'full_key'
  | 'public_key'
  | 'viewer'
  | 'editor'
  | 'admin'
  | 'other_org';
export const READ_IDENTITIES: ReadIdentity[] = [
  'none',
  'expired',
  'garbage',
  'revoked_key',
  'full_key',
  'public_key',
  'viewer',
  'editor',
  'admin',
  'other_org',
];

export interface ReadMatrixRow {
  /** `GET /api/v1/stats` style name, for test titles. */
  name: string;
  method: string;
  /** The path (and query) this tenant's callers use; fresh per identity when a call consumes its resource. */
  path: (who: ReadIdentity) => Promise<string> | string;
  body?: unknown;
  /** Success status (default 200). */
  ok?: number;
  /** A write under the `read` scheme: public keys and viewers get 403. */
  write?: boolean;
  /** A path naming the other organization's resource; called with this tenant's admin and full key → 404. */
  foreignPath?: () => Promise<string> | string;
  /** A body naming the other organization's resource (sent to `path`, or `foreignPath` when set) → 404. */
  foreignBody?: () => Promise<unknown> | unknown;
}

export function credentials(
  t: SeededTenant,
  other: SeededTenant,
  who: ReadIdentity,
): { token?: string; orgId?: string } {
  switch (who) {
    case 'none':
      return {};
    case 'expired':
      return { token: mintJwt({ sub: t.admin.sub, expiresInSeconds: -60 }), orgId: t.orgId };
    case 'garbage':
      return { token: 'garbage', orgId: t.orgId };
    case 'revoked_key':
      return { token: t.revokedKey };
    case 'full_key':
      return { token: t.fullKey };
    case 'public_key':
      return { token: t.publicKey };
    case 'other_org':
      return { token: other.admin.token, orgId: t.orgId };
    default:
      return { token: t[who].token, orgId: t.orgId };
  }
}

function expectedStatus(row: ReadMatrixRow, who: ReadIdentity): number {
  if (['none', 'expired', 'garbage', 'revoked_key'].includes(who)) return 401;
  if (who === 'other_org') return 404;
  if (row.write && (who === 'public_key' || who === 'viewer')) return 403;
  return row.ok ?? 200;
}

/** Declares the jest cases of the matrix (call inside a describe whose beforeAll fills `ctx`). */
export function describeReadMatrix(
  ctx: () => { app: TestApp; t: SeededTenant; other: SeededTenant },
  rows: ReadMatrixRow[],
) {
  const cases = rows.flatMap((row) =>
    READ_IDENTITIES.map((who) => ({ row, who, name: row.name, expected: expectedStatus(row, who) })),
  );
  it.each(cases)('$name as $who → $expected', async ({ row, who, expected }) => {
    const { app, t, other } = ctx();
    const r = await api(app, row.method, await row.path(who), { ...credentials(t, other, who), body: row.body });
    expect({ status: r.status, code: r.body?.code }).toEqual(expect.objectContaining({ status: expected }));
    if (expected >= 400) expect(r.body.success).toBe(false);
  });
  const foreign = rows.filter((r) => r.foreignPath || r.foreignBody);
  if (foreign.length)
    it.each(foreign.map((row) => ({ row, name: row.name })))(
      '$name on another organization’s ids → 404',
      async ({ row }) => {
        const { app, t } = ctx();
        for (const token of [t.admin.token, t.fullKey]) {
          const path = row.foreignPath ? await row.foreignPath() : await row.path('admin');
          const body = row.foreignBody ? await row.foreignBody() : row.body;
          const r = await api(app, row.method, path, { token, orgId: t.orgId, body });
          expect(r.status).toBe(404);
        }
      },
    );
}
