import { promises as dns } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import { buildConnector } from 'undici';
import { AddressPolicy, blockedAddressMessage, type AddressVerdict } from './address-policy';

/**
 * The connection side of the webhook client (safe-http.ts): every hop's host is resolved by our own
 * lookup and every resolved address is checked against the {@link AddressPolicy} at connection time
 * (IP literals before connecting, the connected socket's peer address again after), so DNS
 * rebinding cannot slip past.
 */

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export class BlockedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_BLOCKED_ADDRESS';
  constructor(
    readonly host: string,
    readonly verdict: AddressVerdict,
  ) {
    super(blockedAddressMessage(host, verdict));
  }
}

const systemResolve: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** An undici connector that connects only to addresses the policy allows. */
export function pinnedConnector(
  policy: AddressPolicy,
  opts: { resolve?: Resolver; extraCaPem?: string | Buffer; timeoutMs: number },
): buildConnector.connector {
  const resolve = opts.resolve ?? systemResolve;
  // net/tls call this for hostnames (not for IP literals); with autoSelectFamily they ask for `all`.
  const lookup = (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback) => {
    resolve(hostname).then(
      (addrs) => {
        if (addrs.length === 0)
          return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
        // Refuse the host when any of its addresses is refused: a mixed answer is a rebinding smell.
        for (const a of addrs) {
          const verdict = policy.check(a.address);
          if (!verdict.allowed) return callback(new BlockedAddressError(hostname, verdict), []);
        }
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family) || 0;
        const usable = family ? addrs.filter((a) => a.family === family) : addrs;
        if (usable.length === 0)
          return callback(
            Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }),
            [],
          );
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };

  // Extra CAs: one secure context built up front. Passing `ca` instead would make every new TLS
  // connection parse the whole root store again (milliseconds of CPU per new connection).
  const secureContext = opts.extraCaPem
    ? tls.createSecureContext({ ca: [...defaultCaCertificates(), opts.extraCaPem.toString()] })
    : undefined;
  const baseConnect = buildConnector({
    lookup,
    secureContext,
    timeout: opts.timeoutMs,
    rejectUnauthorized: true,
  } as buildConnector.BuildOptions);

  return (connectOpts, callback) => {
    const host = connectOpts.hostname;
    if (AddressPolicy.isIpLiteral(host)) {
      const verdict = policy.check(host);
      if (!verdict.allowed) return callback(new BlockedAddressError(host, verdict), null);
    }
    baseConnect(connectOpts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('connection failed'), null);
      // Defence in depth: judge the address we actually reached.
      const remote = (socket as Socket).remoteAddress;
      const verdict = remote ? policy.check(remote) : { allowed: false, address: '?', reason: 'unknown peer' };
      if (!verdict.allowed) {
        socket.destroy();
        return callback(new BlockedAddressError(host, verdict), null);
      }
      callback(null, socket);
    });
  };
}

function defaultCaCertificates(): readonly string[] {
  // Node 22.15+/23.5+ exposes the effective default store (bundled roots + NODE_EXTRA_CA_CERTS).
  const get = (tls as unknown as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  return get ? get('default') : tls.rootCertificates;
}
