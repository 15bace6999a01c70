import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses webhook delivery may connect to (SSRF guard). Only public unicast addresses
 * pass: RFC 1918, CGNAT, ULA, loopback, link-local, unspecified, broadcast, multicast, reserved,
 * documentation, NAT64/6to4/Teredo (they embed IPv4 targets) and cloud-metadata addresses are
 * refused. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged as the IPv4 address it maps.
 *
 * An allow-list of CIDRs (WEBHOOK_ALLOW_PRIVATE_CIDRS, development and tests only) lets chosen
 * private ranges through; cloud-metadata addresses are refused even then.
 */

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Instance-metadata and host-agent endpoints of the big clouds: never reachable, allow-list or not. */
const METADATA: Cidr[] = [
  '169.254.169.254/32', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle IMDS
  '169.254.170.2/32', // AWS ECS task metadata
  '169.254.169.253/32', // AWS DNS resolver
  '168.63.129.16/32', // Azure WireServer (a public-looking address)
  '100.100.100.200/32', // Alibaba Cloud
  '192.0.0.192/32', // Oracle Cloud
  'fd00:ec2::254/128', // AWS IMDS over IPv6
  'fd00:ec2::23/128', // AWS Time Sync / DNS over IPv6
].map((c) => ipaddr.parseCIDR(c));

/** Global unicast IPv6 lives in 2000::/3; everything outside it is special-purpose. */
const IPV6_GLOBAL = ipaddr.parseCIDR('2000::/3');

export interface AddressVerdict {
  allowed: boolean;
  /** The address as judged (IPv4-mapped IPv6 unwrapped). */
  address: string;
  /** Why it was refused, e.g. `loopback`, `private`, `cloud metadata`. */
  reason?: string;
}

/** How a refused address is reported (records' error_message, registration errors). */
export const blockedAddressMessage = (host: string, verdict: AddressVerdict) =>
  `blocked address ${verdict.address}${host !== verdict.address ? ` for ${host}` : ''} (${verdict.reason})`;

const inCidr = (addr: ipaddr.IPv4 | ipaddr.IPv6, [net, bits]: Cidr) =>
  addr.kind() === net.kind() && addr.match(net, bits);

function parseCidrList(list: string | readonly string[] | undefined): Cidr[] {
  const items = typeof list === 'string' ? list.split(',') : (list ?? []);
  return items
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      if (s.includes('/')) return ipaddr.parseCIDR(s);
      const a = ipaddr.parse(s);
      return [a, a.kind() === 'ipv4' ? 32 : 128] as Cidr;
    })
    .map(([a, bits]) => {
      // Store IPv4-mapped IPv6 CIDRs as plain IPv4 so they compare with processed addresses.
      if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96)
        return [(a as ipaddr.IPv6).toIPv4Address(), bits - 96] as Cidr;
      return [a, bits] as Cidr;
    });
}

export class AddressPolicy {
  private readonly allow: Cidr[];

  constructor(allowCidrs: string | readonly string[] = []) {
    this.allow = parseCidrList(allowCidrs);
  }

  /** Judges one IP literal (v4 or v6, with or without brackets). Non-IP input is refused. */
  check(ip: string): AddressVerdict {
    const raw = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
    if (!ipaddr.isValid(raw)) return { allowed: false, address: raw, reason: 'not an IP address' };
    const addr = ipaddr.process(raw);
    const address = addr.toString();
    if (METADATA.some((c) => inCidr(addr, c))) return { allowed: false, address, reason: 'cloud metadata' };
    if (this.allow.some((c) => inCidr(addr, c))) return { allowed: true, address };
    const range = addr.range();
    if (range !== 'unicast') return { allowed: false, address, reason: range };
    if (addr.kind() === 'ipv6' && !inCidr(addr, IPV6_GLOBAL)) return { allowed: false, address, reason: 'reserved' };
    return { allowed: true, address };
  }

  /** True when `host` (a URL hostname) is an IP literal; WHATWG URL parsing already normalised decimal/hex forms. */
  static isIpLiteral(host: string): boolean {
    const raw = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    return ipaddr.IPv4.isValidFourPartDecimal(raw) || ipaddr.IPv6.isValid(raw);
  }
}
