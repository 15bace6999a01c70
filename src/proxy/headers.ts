import type { IncomingHttpHeaders } from 'node:http';

/** RFC 9110 §7.6.1 hop-by-hop headers, plus ones the proxy recomputes itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** Request headers that must never reach a provider: the caller's credentials and gateway-local state. */
const CALLER_ONLY = new Set([
  'host',
  'content-length',
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
  'expect',
]);

/** Response headers not passed back: hop-by-hop ones and cookies scoped to the provider's site. */
const RESPONSE_DROP = new Set(['set-cookie', 'set-cookie2', 'alt-svc', 'strict-transport-security']);

const DECODABLE = new Set(['gzip', 'deflate', 'br', 'identity']);

const NONE: ReadonlySet<string> = new Set();

function connectionTokens(headers: IncomingHttpHeaders): ReadonlySet<string> {
  const c = headers.connection;
  // The usual values name no other header: skip the split (this runs twice per proxied call).
  if (c === undefined || c === 'keep-alive' || c === 'close') return NONE;
  const list = Array.isArray(c) ? c.join(',') : (c ?? '');
  return new Set(
    list
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * Accept-Encoding restricted to codings the gateway can decode for usage parsing (the caller
 * still receives the provider's bytes unchanged).
 */
function acceptEncoding(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => DECODABLE.has(p.split(';')[0]!.trim().toLowerCase()));
  return parts.length ? parts.join(', ') : 'identity';
}

/** Headers for the upstream request: everything the caller sent minus service, hop-by-hop and credential headers. */
export function upstreamRequestHeaders(incoming: IncomingHttpHeaders): Record<string, string | string[]> {
  const dropByConnection = connectionTokens(incoming);
  const out: Record<string, string | string[]> = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined) continue;
    if (name.startsWith('x-service-')) continue;
    if (HOP_BY_HOP.has(name) || CALLER_ONLY.has(name) || dropByConnection.has(name)) continue;
    if (name === 'accept-encoding') {
      const ae = acceptEncoding(value);
      if (ae) out[name] = ae;
      continue;
    }
    out[name] = value;
  }
  return out;
}

/** Headers of the upstream answer to pass back to the caller. */
export function downstreamResponseHeaders(
  upstream: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const c = upstream.connection;
  const dropByConnection = connectionTokens({ connection: Array.isArray(c) ? c.join(',') : c });
  const out: Record<string, string | string[]> = {};
  for (const name in upstream) {
    const value = upstream[name];
    if (value === undefined) continue;
    const n = name.toLowerCase();
    if (HOP_BY_HOP.has(n) || RESPONSE_DROP.has(n) || dropByConnection.has(n)) continue;
    if (n.startsWith('x-service-')) continue; // only the gateway speaks in its own namespace
    out[n] = value;
  }
  return out;
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
