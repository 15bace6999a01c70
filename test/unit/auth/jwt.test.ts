import { createJwtVerifier } from '../../../src/auth/jwt';
import { loadConfig } from '../../../src/config';
import { HttpError } from '../../../src/http/errors';
import { mintJwt } from '../../helpers/auth';

const SECRET = 'unit-secret-unit-secret-unit-secret';
const verifier = (env: Record<string, string> = {}) =>
  createJwtVerifier(loadConfig({ AUTH_JWT_SECRET: SECRET, ...env }));

async function rejection(p: Promise<unknown>): Promise<HttpError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('HS256 JWT verification', () => {
  it('returns sub and email of a valid token; email is optional', async () => {
    const v = verifier();
    await expect(v(mintJwt({ sub: 'alice', email: 'alice@example.com', secret: SECRET }))).resolves.toMatchObject({
      sub: 'alice',
      email: 'alice@example.com',
    });
    await expect(v(mintJwt({ sub: 'bob', secret: SECRET }))).resolves.toMatchObject({ sub: 'bob', email: null });
  });

  it('honours exp (with the configured small clock tolerance) and requires it', async () => {
    const v = verifier();
    const e = await rejection(v(mintJwt({ sub: 'a', secret: SECRET, expiresInSeconds: -30 })));
    expect([e.status, e.code]).toEqual([401, 'token_expired']);
    // within 5 s skew
    await expect(v(mintJwt({ sub: 'a', secret: SECRET, expiresInSeconds: -2 }))).resolves.toBeTruthy();
    const noExp = await rejection(v(mintJwt({ sub: 'a', secret: SECRET, claims: { exp: undefined } })));
    expect(noExp.status).toBe(401);
  });

  it('rejects wrong signature, missing sub, unsupported algorithms and garbage with 401', async () => {
    const v = verifier();
    for (const token of [
      mintJwt({ sub: 'a', secret: 'another-secret-another-secret' }),
      mintJwt({ sub: '', secret: SECRET }),
      'a.b.c',
      'garbage',
    ]) {
      const e = await rejection(v(token));
      expect(e.status).toBe(401);
    }
  });

  it('checks issuer and audience when configured', async () => {
    const v = verifier({ AUTH_JWT_ISSUER: 'https://idp/', AUTH_JWT_AUDIENCE: 'gw' });
    await expect(
      v(mintJwt({ sub: 'a', secret: SECRET, issuer: 'https://idp/', audience: 'gw' })),
    ).resolves.toBeTruthy();
    expect(
      (await rejection(v(mintJwt({ sub: 'a', secret: SECRET, issuer: 'https://other/', audience: 'gw' })))).status,
    ).toBe(401);
    expect(
      (await rejection(v(mintJwt({ sub: 'a', secret: SECRET, issuer: 'https://idp/', audience: 'other' })))).status,
    ).toBe(401);
    expect((await rejection(v(mintJwt({ sub: 'a', secret: SECRET })))).status).toBe(401);
  });

  it('without any verification configured, every token is refused', async () => {
    const v = createJwtVerifier(loadConfig({}));
    expect((await rejection(v(mintJwt({ sub: 'a', secret: SECRET })))).status).toBe(401);
  });
});
