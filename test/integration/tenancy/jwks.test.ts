import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadJose, type Jose } from '../../../src/auth/jose';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, mintJwt } from '../../helpers/auth';

/**
 * A test identity provider on loopback publishing its JWKS; the service verifies RS256/ES256
 * tokens against it with issuer and audience checks, and picks up a rotated key.
 */
const ISSUER = 'https://idp.test/';
const AUDIENCE = 'llm-gateway';

type Key = {
  kid: string;
  privateKey: Parameters<InstanceType<Jose['SignJWT']>['sign']>[0];
  jwk: Record<string, unknown>;
};

describe('JWT verification against a remote JWKS (key rotation)', () => {
  let jose: Jose;
  let idp: http.Server;
  let published: Key[] = [];
  let fetches = 0;
  let idpUp = true;
  let app: TestApp;

  const newKey = async (kid: string, alg = 'ES256'): Promise<Key> => {
    const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
    return { kid, privateKey, jwk: { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' } };
  };
  const sign = (
    key: Key,
    claims: Record<string, unknown> = {},
    opts: { iss?: string; aud?: string; exp?: string | number; alg?: string } = {},
  ) =>
    new jose.SignJWT({ email: 'carol@example.test', ...claims })
      .setProtectedHeader({ alg: opts.alg ?? 'ES256', kid: key.kid })
      .setSubject('carol')
      .setIssuer(opts.iss ?? ISSUER)
      .setAudience(opts.aud ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? '1h')
      .sign(key.privateKey);
  const me = (token: string) => api(app, 'GET', '/api/v1/me', { token });

  beforeAll(async () => {
    jose = await loadJose();
    published = [await newKey('k1')];
    idp = http.createServer((_req, res) => {
      if (!idpUp) {
        res.statusCode = 503;
        return res.end();
      }
      fetches++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
    });
    await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/.well-known/jwks.json`;
    app = await startTestApp({
      role: 'api',
      // Cooldown 0: an unknown kid triggers a refetch at once (production default 30 s).
      env: {
        AUTH_JWKS_URL: url,
        AUTH_JWT_ISSUER: ISSUER,
        AUTH_JWT_AUDIENCE: AUDIENCE,
        AUTH_JWKS_COOLDOWN_MS: '0',
        AUTH_JWT_SECRET: '',
      },
    });
  });
  afterAll(async () => {
    await app.stop();
    await new Promise((r) => idp.close(r));
  });

  it('accepts a token signed by the published key and provisions the user once, with the email claim', async () => {
    const token = await sign(published[0]!);
    const a = await me(token);
    expect(a.status).toBe(200);
    expect(a.body.data.user).toMatchObject({ sub: 'carol', email: 'carol@example.test' });
    const b = await me(token);
    expect(b.body.data.user.id).toBe(a.body.data.user.id);
    const { rows } = await app.database.db.raw(`select count(*)::int as n from users where sub = 'carol'`);
    expect(rows[0].n).toBe(1);
    // The key set is cached: several verifications, one fetch.
    expect(fetches).toBe(1);
  });

  it('rejects wrong issuer, wrong audience, expired, and unknown-key tokens with 401', async () => {
    const k = published[0]!;
    for (const [token, code] of [
      [await sign(k, {}, { iss: 'https://evil.test/' }), 'invalid_token'],
      [await sign(k, {}, { aud: 'someone-else' }), 'invalid_token'],
      [await sign(k, {}, { exp: Math.floor(Date.now() / 1000) - 60 }), 'token_expired'],
      [await sign(await newKey('k1'), {}), 'invalid_token'], // right kid, wrong key material
      [await sign(await newKey('stranger')), 'invalid_token'],
    ] as const) {
      const r = await me(token);
      expect([r.status, r.body.code]).toEqual([401, code]);
    }
  });

  it('rejects HS256 tokens when no shared secret is configured, and unsigned tokens', async () => {
    const hs = mintJwt({ sub: 'carol', issuer: ISSUER, audience: AUDIENCE });
    expect((await me(hs)).status).toBe(401);
    const unsignedHeader = Buffer.from('{"alg":"none"}').toString('base64url');
    const unsignedClaims = { sub: 'carol', exp: 2e9, iss: ISSUER, aud: AUDIENCE };
    const none = `${unsignedHeader}.${Buffer.from(JSON.stringify(unsignedClaims)).toString('base64url')}.`;
    expect((await me(none)).status).toBe(401);
    expect((await me('not-a-jwt')).status).toBe(401);
  });

  it(
    'after the provider rotates its key, ' +
      'tokens of the new key verify (JWKS refetched), tokens of the removed key do not',
    async () => {
      const old = published[0]!;
      const oldToken = await sign(old);
      expect((await me(oldToken)).status).toBe(200);
      const before = fetches;

      const next = await newKey('k2', 'RS256');
      published = [next];
      const r = await me(await sign(next, {}, { alg: 'RS256' }));
      expect(r.status).toBe(200);
      expect(r.body.data.user.sub).toBe('carol');
      expect(fetches).toBe(before + 1);

      // k1 is gone from the set: its tokens fail even though they are unexpired and were valid.
      const gone = await me(oldToken);
      expect(gone.status).toBe(401);
    },
  );

  it('answers 503 when the identity provider cannot be reached for an unknown key', async () => {
    idpUp = false;
    try {
      const r = await me(await sign(await newKey('k3')));
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('identity_provider_unavailable');
    } finally {
      idpUp = true;
    }
  });
});
