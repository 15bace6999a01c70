/**
 * Mints a local HS256 dashboard token (1 hour) signed with AUTH_JWT_SECRET, or the dev default
 * that `npm run dev` uses when it is unset. Prints only the token.
 *
 *   npm run -s token -- --sub alice --email alice@example.com [--ttl 3600]
 */
import { parseArgs } from 'node:util';
import { DEV_JWT_SECRET } from '../src/auth/dev-secret';
import { loadJose } from '../src/auth/jose';
import { loadConfig } from '../src/config';

async function main() {
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      email: { type: 'string' },
      ttl: { type: 'string', default: '3600' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values.sub) {
    process.stderr.write('usage: npm run -s token -- --sub <user id> [--email <address>] [--ttl <seconds, default 3600>]\n');
    process.exit(values.help ? 0 : 2);
  }
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl <= 0) throw new Error('--ttl must be a positive number of seconds');
  const config = loadConfig();
  const secret = config.AUTH_JWT_SECRET ?? DEV_JWT_SECRET;
  const { SignJWT } = await loadJose();
  let jwt = new SignJWT(values.email ? { email: values.email } : {})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(values.sub)
    .setIssuedAt()
    .setExpirationTime(`${ttl}s`);
  if (config.AUTH_JWT_ISSUER) jwt = jwt.setIssuer(config.AUTH_JWT_ISSUER);
  if (config.AUTH_JWT_AUDIENCE) jwt = jwt.setAudience(config.AUTH_JWT_AUDIENCE);
  process.stdout.write((await jwt.sign(new TextEncoder().encode(secret))) + '\n');
}

main().catch((err) => {
  process.stderr.write(`token: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
