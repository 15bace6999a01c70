import type { TestApp } from './app';
import { api, type SeededTenant } from './auth';
import { credentials, type ReadIdentity, READ_IDENTITIES } from './read-matrix';

/**
 * The role matrix of routes under the `jwt` scheme (the spec's "JWT" groups): no or bad
 * credentials and revoked keys 401; any API key 403; every role reads; writes need admin or editor
 * (viewers 403); another organization's admin naming this organization 404.
 */
export interface JwtMatrixRow {
  name: string;
  method: string;
  path: () => Promise<string> | string;
  body?: unknown;
  ok?: number;
  write?: boolean;
}

function jwtExpected(row: JwtMatrixRow, who: ReadIdentity): number {
  if (['none', 'expired', 'garbage', 'revoked_key'].includes(who)) return 401;
  if (who === 'full_key' || who === 'public_key') return 403;
  if (who === 'other_org') return 404;
  if (row.write && who === 'viewer') return 403;
  return row.ok ?? 200;
}

export function describeJwtMatrix(
  ctx: () => { app: TestApp; t: SeededTenant; other: SeededTenant },
  rows: JwtMatrixRow[],
) {
  const cases = rows.flatMap((row) =>
    READ_IDENTITIES.map((who) => ({ row, who, name: row.name, expected: jwtExpected(row, who) })),
  );
  it.each(cases)('$name as $who → $expected', async ({ row, who, expected }) => {
    const { app, t, other } = ctx();
    const r = await api(app, row.method, await row.path(), { ...credentials(t, other, who), body: row.body });
    expect(r.status).toBe(expected);
    expect(r.body.success).toBe(expected < 400);
  });
}
