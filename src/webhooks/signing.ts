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
