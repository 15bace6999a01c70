import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { loadJose } from '../../src/auth/jose';
import { startTestApp, type TestApp } from '../helpers/app';
import { findChromium } from '../helpers/browser-path';

const CLIENT = 'gateway-web';

/**
 * Dashboard sign-in through an identity provider: a fake OIDC provider on loopback (discovery,
 * an authorize endpoint that consents at once, a token endpoint checking the PKCE verifier, a
 * JWKS); the app runs the authorization-code flow with PKCE and calls the API with the ID token.
 */
describe('dashboard OIDC sign-in (authorization code + PKCE)', () => {
  let idp: http.Server;
  let issuer = '';
  let app: TestApp;
  let browser: Browser;
  const codes = new Map<string, { challenge: string; redirect: string }>();
  const seen: { verifierOk?: boolean; method?: string } = {};

  beforeAll(async () => {
    const jose = await loadJose();
    const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    idp = http.createServer((req, res) => {
      const url = new URL(req.url!, issuer);
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-headers', '*');
      if (req.method === 'OPTIONS') return res.end();
      const json = (v: unknown) => (res.setHeader('content-type', 'application/json'), res.end(JSON.stringify(v)));
      if (url.pathname === '/.well-known/openid-configuration') {
        return json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          id_token_signing_alg_values_supported: ['RS256'],
        });
      }
      if (url.pathname === '/jwks') return json({ keys: [jwk] });
      if (url.pathname === '/authorize') {
        seen.method = url.searchParams.get('code_challenge_method') ?? undefined;
        const code = randomUUID();
        codes.set(code, {
          challenge: url.searchParams.get('code_challenge')!,
          redirect: url.searchParams.get('redirect_uri')!,
        });
        res.statusCode = 302;
        const [back, state] = [url.searchParams.get('redirect_uri'), url.searchParams.get('state')];
        const location = `${back}?code=${code}&state=${state}&iss=${encodeURIComponent(issuer)}`;
        res.setHeader('location', location);
        return res.end();
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', async () => {
          const form = new URLSearchParams(body);
          const grant = codes.get(form.get('code') ?? '');
          seen.verifierOk =
            !!grant &&
            createHash('sha256')
              .update(form.get('code_verifier') ?? '')
              .digest('base64url') === grant.challenge;
          if (!seen.verifierOk) return ((res.statusCode = 400), json({ error: 'invalid_grant' }));
          const idToken = await new jose.SignJWT({ email: 'olivia@example.test' })
            .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
            .setSubject('olivia')
            .setIssuer(issuer)
            .setAudience(CLIENT)
            .setIssuedAt()
            .setExpirationTime('1h')
            .sign(privateKey);
          json({ access_token: 'at', token_type: 'Bearer', expires_in: 3600, id_token: idToken });
        });
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
    issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    app = await startTestApp({
      role: 'api',
      env: {
        AUTH_JWT_SECRET: '',
        AUTH_JWKS_URL: `${issuer}/jwks`,
        AUTH_JWT_ISSUER: issuer,
        AUTH_JWT_AUDIENCE: CLIENT,
        UI_OIDC_ISSUER: issuer,
        UI_OIDC_CLIENT_ID: CLIENT,
      },
    });
    browser = await chromium.launch({
      executablePath: findChromium()!,
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await new Promise((r) => idp?.close(r));
  });

  it('signs in through the identity provider and calls the API with its ID token', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}/`);
    await page.click('text=Sign in with your identity provider');
    await page.waitForSelector('text=olivia@example.test');
    expect(seen).toEqual({ method: 'S256', verifierOk: true });
    expect(new URL(page.url()).pathname).toBe('/');
    await page.waitForSelector('text=You belong to no organization yet'); // a new user: the next step is to create one
    const token = await page.evaluate('sessionStorage.getItem("gw.token")');
    const me = await fetch(`${app.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { data: { user: unknown } }).data.user).toMatchObject({
      sub: 'olivia',
      email: 'olivia@example.test',
    });
  });
});
