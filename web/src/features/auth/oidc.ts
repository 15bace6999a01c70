import * as oauth from 'oauth4webapi';
import type { Schema } from '../../api/types';

/**
 * Sign-in with an identity provider (GET /api/v1/ui-config answers `oidc`): the authorization-code
 * flow with PKCE (S256) through oauth4webapi; the ID token becomes the API's bearer token.
 */
export type OidcConfig = NonNullable<Schema<'UiConfig'>['oidc']>;
const PKCE = 'gw.pkce';

/** Plain HTTP is allowed only for an identity provider on this machine (a local Keycloak, the tests' fake). */
const insecure = (u: URL) =>
  ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname) ? { [oauth.allowInsecureRequests]: true } : {};

async function discover(cfg: OidcConfig) {
  const issuer = new URL(cfg.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure(issuer)));
  const client: oauth.Client = { client_id: cfg.client_id };
  return { as, client, opts: insecure(issuer) };
}

export async function startOidc(cfg: OidcConfig) {
  const { as } = await discover(cfg);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem(PKCE, JSON.stringify({ verifier, state }));
  if (!as.authorization_endpoint) throw new Error('the identity provider names no authorization endpoint');
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: cfg.client_id,
    redirect_uri: `${location.origin}/auth/callback`,
    response_type: 'code',
    scope: cfg.scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

function storedPkce(): { verifier: string; state: string } {
  const v: unknown = JSON.parse(sessionStorage.getItem(PKCE) ?? 'null');
  if (
    typeof v === 'object' &&
    v !== null &&
    'verifier' in v &&
    'state' in v &&
    typeof v.verifier === 'string' &&
    typeof v.state === 'string'
  )
    return { verifier: v.verifier, state: v.state };
  throw new Error('This sign-in was not started here: start it again.');
}

/** The redirect back from the identity provider: code → tokens → the ID token. */
export async function finishOidc(cfg: OidcConfig): Promise<string> {
  const { as, client, opts } = await discover(cfg);
  const { verifier, state } = storedPkce();
  const params = oauth.validateAuthResponse(as, client, new URL(location.href), state);
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    `${location.origin}/auth/callback`,
    verifier,
    opts,
  );
  const out = await oauth.processAuthorizationCodeResponse(as, client, res);
  sessionStorage.removeItem(PKCE);
  if (!out.id_token) throw new Error('the identity provider answered no ID token');
  return out.id_token;
}
