import { AddressPolicy, blockedAddressMessage, type AddressVerdict } from './address-policy';

/**
 * The webhook URL rules, in one place: checked on registration (schema and service) and on every
 * hop of every send (safe-http). A URL must parse, use https, carry no credentials, have a host,
 * and, when its host is an IP literal, name an address the {@link AddressPolicy} allows (hostnames
 * are judged at connection time, after resolution).
 */
export type UrlRule = 'invalid' | 'scheme' | 'credentials' | 'host' | 'address';

export interface UrlRefusal {
  rule: UrlRule;
  /** As recorded on a delivery (`http:// URL is not HTTPS`, `blocked address 10.0.0.1 (private)`). */
  message: string;
  verdict?: AddressVerdict;
}

/** Why `url` must not receive webhooks, or null. Without `addresses` the address rule is skipped. */
export function refuseWebhookUrl(url: string | URL, addresses?: AddressPolicy): UrlRefusal | null {
  if (typeof url === 'string' && !URL.canParse(url)) return { rule: 'invalid', message: 'invalid URL' };
  const u = typeof url === 'string' ? new URL(url) : url;
  if (u.protocol !== 'https:') return { rule: 'scheme', message: `${u.protocol}// URL is not HTTPS` };
  if (u.username || u.password) return { rule: 'credentials', message: 'URL must not contain credentials' };
  if (!u.hostname) return { rule: 'host', message: 'URL has no host' };
  if (addresses && AddressPolicy.isIpLiteral(u.hostname)) {
    const verdict = addresses.check(u.hostname);
    if (!verdict.allowed) return { rule: 'address', message: blockedAddressMessage(u.hostname, verdict), verdict };
  }
  return null;
}
