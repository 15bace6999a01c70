import type { JWTPayload, JWTVerifyOptions } from 'jose' with { 'resolution-mode': 'import' };
import type { Config } from '../config';
import { HttpError } from '../http/errors';
import { loadJose, type Jose } from './jose';

/** Claims we use from a verified token. */
interface VerifiedIdentity {
  sub: string;
  email: string | null;
  emailVerified: boolean | null;
  payload: JWTPayload;
}

export type JwtVerifier = (token: string) => Promise<VerifiedIdentity>;

const ASYMMETRIC = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

const invalid = (message: string, code = 'invalid_token') =>
  new HttpError(401, code, message, {}, { 'www-authenticate': 'Bearer error="invalid_token"' });

/**
 * Verifies dashboard JWTs. Asymmetric tokens are checked against the identity provider's key set
 * (AUTH_JWKS_URL, fetched and cached by jose, re-fetched on an unknown `kid` after the cooldown so
 * key rotation works); HS256 tokens against AUTH_JWT_SECRET (local use). Either way `exp` is
 * required and issuer/audience are enforced when configured.
 */
export function createJwtVerifier(config: Config): JwtVerifier {
  let ready: Promise<(token: string) => Promise<VerifiedIdentity>> | undefined;
  return async (token) => (await (ready ??= loadJose().then((jose) => build(jose, config))))(token);
}

function build(jose: Jose, config: Config): (token: string) => Promise<VerifiedIdentity> {
  const { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } = jose;
  const jwks = config.AUTH_JWKS_URL
    ? createRemoteJWKSet(new URL(config.AUTH_JWKS_URL), {
        cooldownDuration: config.AUTH_JWKS_COOLDOWN_MS,
        cacheMaxAge: config.AUTH_JWKS_CACHE_MAX_AGE_MS,
        timeoutDuration: 5000,
      })
    : undefined;
  // HS256 is for setups without an identity provider: with a JWKS, a shared secret (however it got
  // into the environment) must not become a second way to mint admin tokens.
  const secret = config.AUTH_JWT_SECRET && !jwks ? new TextEncoder().encode(config.AUTH_JWT_SECRET) : undefined;
  const base: JWTVerifyOptions = {
    issuer: config.AUTH_JWT_ISSUER || undefined,
    audience: config.AUTH_JWT_AUDIENCE || undefined,
    requiredClaims: ['exp', 'sub'],
    clockTolerance: config.AUTH_JWT_CLOCK_TOLERANCE_S,
  };

  return async (token: string) => {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw invalid('Bearer token is neither an API key nor a well-formed JWT');
    }
    let payload: JWTPayload;
    try {
      if (alg === 'HS256' && secret) {
        ({ payload } = await jwtVerify(token, secret, { ...base, algorithms: ['HS256'] }));
      } else if (alg && ASYMMETRIC.includes(alg) && jwks) {
        ({ payload } = await jwtVerify(token, jwks, { ...base, algorithms: ASYMMETRIC }));
      } else {
        throw invalid(`JWT algorithm ${alg ?? 'none'} is not accepted by this server`);
      }
    } catch (err) {
      throw mapJoseError(jose, err);
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 255)
      throw invalid('JWT has no usable sub claim');
    const email = typeof payload.email === 'string' && payload.email.length <= 320 ? payload.email : null;
    const emailVerified = typeof payload.email_verified === 'boolean' ? payload.email_verified : null;
    return { sub: payload.sub, email, emailVerified, payload };
  };
}

function mapJoseError({ errors }: Jose, err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof errors.JWTExpired) return invalid('JWT has expired', 'token_expired');
  if (err instanceof errors.JWTClaimValidationFailed)
    return invalid(`JWT claim check failed: ${err.claim} ${err.reason}`);
  if (err instanceof errors.JWSSignatureVerificationFailed) return invalid('JWT signature is invalid');
  if (err instanceof errors.JWKSNoMatchingKey)
    return invalid('JWT was signed with a key the identity provider does not publish');
  // Non-200/unparsable key set responses surface as the generic JOSEError.
  if (
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid ||
    (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC')
  ) {
    return new HttpError(503, 'identity_provider_unavailable', 'Could not load the identity provider key set');
  }
  if (err instanceof errors.JOSEError) return invalid(`Invalid JWT (${err.code})`);
  // Network failures fetching the JWKS surface as plain errors.
  return new HttpError(503, 'identity_provider_unavailable', 'Could not load the identity provider key set');
}
