import type { Config } from '../config';
import { loadJose } from './jose';

/**
 * A local HS256 user token (what `npm run token` prints and the dev stack's dashboard link carries),
 * honouring the configured issuer and audience. Never for servers that trust an identity provider.
 */
export async function mintLocalToken(
  config: Config,
  secret: string,
  who: { sub: string; email?: string | undefined; ttlSeconds: number },
): Promise<string> {
  if (config.AUTH_JWKS_URL)
    throw new Error(
      'AUTH_JWKS_URL is set: this server accepts only tokens of that identity provider, not local HS256 tokens',
    );
  const { SignJWT } = await loadJose();
  let jwt = new SignJWT(who.email ? { email: who.email } : {})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(who.sub)
    .setIssuedAt()
    .setExpirationTime(`${who.ttlSeconds}s`);
  if (config.AUTH_JWT_ISSUER) jwt = jwt.setIssuer(config.AUTH_JWT_ISSUER);
  if (config.AUTH_JWT_AUDIENCE) jwt = jwt.setAudience(config.AUTH_JWT_AUDIENCE);
  return jwt.sign(new TextEncoder().encode(secret));
}
