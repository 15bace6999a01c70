/**
 * Removes secrets from audit snapshots by field name. Ids (`*_id`, `*Id`) and display-only fields
 * (prefix, last4, key_hint) are kept; anything that looks like a secret, hash or ciphertext is not.
 */
const SECRET_NAME =
  /(secret|token|password|passphrase|api_?key|authorization|hash|cipher|private|credential|master_?key)/i;
const KEEP = /(_id|Id|_ids|Ids)$|^(prefix|last4|key_hint|masked_key|secret_masked|token_prefix)$/;
export const REDACTED = '[redacted]';

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_NAME.test(k) && !KEEP.test(k) && v !== null && v !== undefined ? REDACTED : redact(v, depth + 1);
  }
  return out;
}
