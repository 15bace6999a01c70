/**
 * Masks for excerpts. A finding shows what kind of thing leaked and where, never the thing: a
 * secret keeps at most a 4-character prefix, and only when it starts with one naming its issuer
 * (`ghp_`, `AKIA`); a secret found after a label (an AWS secret key, a URL's password, a PEM body)
 * keeps nothing; at most 12 stars, so a long secret's length does not show. PII keeps its last
 * digits or its e-mail domain.
 */
export function maskSecret(value: string, prefixed: boolean): string {
  const keep = prefixed && value.length >= 16 ? 4 : 0;
  return `${value.slice(0, keep)}${'*'.repeat(Math.min(12, Math.max(4, value.length - keep)))}`;
}

export function maskEmail(value: string): string {
  const at = value.lastIndexOf('@');
  return `${value[0]}***${value.slice(at)}`;
}

/** Every digit but the last `keep` becomes `*`; separators stay so the shape is recognisable. */
export function maskDigits(value: string, keep: number): string {
  let left = value.replace(/[^0-9]/g, '').length - keep;
  return value.replace(/[0-9]/g, (d) => (left-- > 0 ? '*' : d));
}

/** IBAN: country and check digits, then the last 4 characters. */
export function maskIban(value: string): string {
  const v = value.replace(/\s/g, '');
  return `${v.slice(0, 4)}${'*'.repeat(Math.max(4, v.length - 8))}${v.slice(-4)}`;
}
