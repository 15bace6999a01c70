import * as oauth from 'oauth4webapi';

/**
 * Sign-in. With an identity provider (GET /api/v1/ui-config answers `oidc`), the OIDC
 * authorization-code flow with PKCE through oauth4webapi, keeping the ID token as the API's JWT.
 * On the dev stack, the link `npm run dev` prints carries a local token in the URL fragment
 * (`#dev_token=…`), or a token from `npm run token` is pasted. Tokens live in sessionStorage.
 */
export interface UiConfig {
  oidc: { issuer: string; client_id: string; scope: string } | null;
  temporal_ui_url: string | null;
}
const KEY = 'gw.token';

export function storedToken(): string | null {
  const m = /[#&]dev_token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(KEY, decodeURIComponent(m[1]!));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(KEY);
}
export const saveToken = (t: string) => sessionStorage.setItem(KEY, t);
export const signOut = () => {
  sessionStorage.removeItem(KEY);
  location.assign('/');
};

/** Plain HTTP is allowed only for an identity provider on this machine (a local Keycloak, the tests' fake). */
const insecure = (u: URL) => (['localhost', '127.0.0.1', '[::1]'].includes(u.hostname) ? { [oauth.allowInsecureRequests]: true } : {});

async function discover(cfg: NonNullable<UiConfig['oidc']>) {
  const issuer = new URL(cfg.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure(issuer)));
  return { as, client: { client_id: cfg.client_id } as oauth.Client, opts: insecure(issuer) };
}

export async function startOidc(cfg: NonNullable<UiConfig['oidc']>) {
  const { as } = await discover(cfg);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem('gw.pkce', JSON.stringify({ verifier, state }));
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: cfg.client_id, redirect_uri: `${location.origin}/auth/callback`, response_type: 'code', scope: cfg.scope, state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

/** The redirect back from the identity provider: code → tokens → the ID token is the API's JWT. */
export async function finishOidc(cfg: NonNullable<UiConfig['oidc']>): Promise<string> {
  const { as, client, opts } = await discover(cfg);
  const { verifier, state } = JSON.parse(sessionStorage.getItem('gw.pkce') ?? '{}');
  const params = oauth.validateAuthResponse(as, client, new URL(location.href), state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, `${location.origin}/auth/callback`, verifier, opts);
  const out = await oauth.processAuthorizationCodeResponse(as, client, res);
  sessionStorage.removeItem('gw.pkce');
  if (!out.id_token) throw new Error('the identity provider answered no ID token');
  saveToken(out.id_token);
  return out.id_token;
}
