import { z } from 'zod';
import { decryptSecret, encryptSecret, type Keyring } from '../auth/crypto';

/**
 * Per-webhook custom headers (docs/webhooks.md "Custom headers"), e.g. a receiver's own
 * `Authorization`. Sent on every attempt; stored AES-256-GCM encrypted like the secret (they may
 * be credentials), bound to the webhook id; the API shows only their names.
 */

const MAX_CUSTOM_HEADERS = 20;
const MAX_VALUE = 1024;
/** RFC 9110 token characters; 64 is plenty for a header name. */
const NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Printable ASCII only: no CR/LF (header injection), nothing a proxy could re-encode. */
const VALUE = new RegExp(`^[\\x20-\\x7e]{1,${MAX_VALUE}}$`);

/** Names the service sets itself, or that change how the message is framed or routed. */
const FORBIDDEN = new Set([
  'x-service-signature',
  'x-service-delivery-id',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'user-agent',
]);
const FORBIDDEN_PREFIXES = ['x-service-', 'webhook-', 'proxy-', 'sec-'];

const forbiddenHeaderName = (name: string): boolean => {
  const n = name.toLowerCase();
  return FORBIDDEN.has(n) || FORBIDDEN_PREFIXES.some((p) => n.startsWith(p));
};

export const customHeadersSchema = z
  .record(z.string(), z.string())
  .superRefine((h, ctx) => {
    const names = Object.keys(h);
    if (names.length > MAX_CUSTOM_HEADERS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_CUSTOM_HEADERS} headers` });
    }
    const seen = new Set<string>();
    for (const name of names) {
      const issue = (message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
      if (!NAME.test(name)) issue("is not a valid header name (letters, digits and !#$%&'*+.^_`|~-, at most 64)");
      else if (forbiddenHeaderName(name)) issue('is set by the service and cannot be overridden');
      else if (seen.has(name.toLowerCase())) issue('appears twice (header names are case-insensitive)');
      if (!VALUE.test(h[name]!)) issue(`must be 1–${MAX_VALUE} printable ASCII characters (no line breaks)`);
      seen.add(name.toLowerCase());
    }
  })
  .describe(
    `Headers sent with every attempt (at most ${MAX_CUSTOM_HEADERS}; ` +
      'a PATCH replaces the whole set, {} removes them). ' +
      'Stored encrypted; reads show only their names. The service’s own headers (X-Service-*, webhook-*, ' +
      'Content-Type, Host, User-Agent, …) cannot be set.',
  )
  .meta({ example: { Authorization: 'Bearer receiver-token', 'X-Tenant': 'acme' } });

const aad = (webhookId: string) => `webhook-headers:${webhookId}`;

/** The columns of a header set: null when there is none. */
export function customHeaderColumns(ring: Keyring, webhookId: string, headers: Record<string, string>) {
  const names = Object.keys(headers);
  if (names.length === 0) {
    return { headers_ciphertext: null, headers_master_key_id: null, header_names: [] as string[] };
  }
  const enc = encryptSecret(ring, JSON.stringify(headers), aad(webhookId));
  return { headers_ciphertext: enc.ciphertext, headers_master_key_id: enc.keyId, header_names: names };
}

/** A webhook's custom headers, decrypted for a send ({} when it has none). */
export function decryptCustomHeaders(
  ring: Keyring,
  hook: { id: string; headers_ciphertext?: string | null; headers_master_key_id?: string | null },
): Record<string, string> {
  if (!hook.headers_ciphertext || !hook.headers_master_key_id) return {};
  const json = decryptSecret(ring, hook.headers_ciphertext, hook.headers_master_key_id, aad(hook.id));
  return JSON.parse(json) as Record<string, string>;
}

/**
 * Values scrubbed from the attempt history should a receiver echo them: every value of 8
 * characters or more (shorter ones are no secret, and scrubbing them would garble the excerpt).
 */
export const evidenceSecrets = (headers: Record<string, string>): string[] =>
  Object.values(headers).filter((v) => v.length >= 8);
