import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DELIVERY_ID_HEADER = 'X-Service-Delivery-Id';

/** `sha256=<lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook secret>`. */
export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Receiver-side check (also used by our tests): constant-time comparison over the raw bytes. */
export function verifySignature(rawBody: string | Buffer, secret: string, header: string | undefined | null): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(rawBody, secret), 'utf8');
  const given = Buffer.from(header, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Standard Webhooks headers (https://www.standardwebhooks.com), sent next to the two above. */
const STANDARD_ID_HEADER = 'webhook-id';
const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

/**
 * The bare base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`. The key is the secret's 32 ASCII
 * characters as bytes, exactly as for X-Service-Signature, so one secret string serves both.
 */
const standardDigest = (id: string, timestamp: number, body: string | Buffer, secret: string): string =>
  createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(body).digest('base64');

/**
 * The three Standard Webhooks headers of one attempt: `webhook-signature` holds `v1,<digest>` per
 * valid secret (current first), space-separated, so a receiver with either secret verifies during
 * a rotation.
 */
export function standardHeaders(id: string, timestamp: number, body: string | Buffer, secrets: readonly string[]) {
  const digests = secrets.map((s) => standardDigest(id, timestamp, body, s));
  const headers = {
    [STANDARD_ID_HEADER]: id,
    [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
    [STANDARD_SIGNATURE_HEADER]: digests.map((d) => `v1,${d}`).join(' '),
  };
  return { headers, digests };
}
