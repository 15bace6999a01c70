/**
 * Mints a local HS256 dashboard token (1 hour) signed with AUTH_JWT_SECRET, or with the dev stack's
 * own secret (`.data/jwt-secret`, or DEV_DATA_DIR/jwt-secret) when it is unset. Prints only the token.
 * Refuses when AUTH_JWKS_URL is set: the server then accepts only the identity provider's tokens.
 *
 *   npm run -s token -- --sub alice --email alice@example.com [--ttl 3600]
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { devJwtSecret } from '../src/auth/dev-secret';
import { PROJECT_ROOT } from '../src/temporal/binaries';
import { mintLocalToken } from '../src/auth/dev-token';
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
    process.stderr.write(
      'usage: npm run -s token -- --sub <user id> [--email <address>] [--ttl <seconds, default 3600>]\n',
    );
    process.exit(values.help ? 0 : 2);
  }
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl <= 0) throw new Error('--ttl must be a positive number of seconds');
  const config = loadConfig();
  const secret = config.AUTH_JWT_SECRET ?? devJwtSecret(process.env.DEV_DATA_DIR ?? path.join(PROJECT_ROOT, '.data'));
  process.stdout.write(
    (await mintLocalToken(config, secret, { sub: values.sub, email: values.email, ttlSeconds: ttl })) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`token: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
