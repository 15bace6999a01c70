/**
 * Where a call goes, as undici's `dispatch` wants it: an origin and a request path. A base URL is
 * parsed once, not per call. A path with characters the WHATWG URL parser would rewrite (spaces,
 * quotes, non-ASCII, backslashes, `#`) goes through `new URL` exactly as `undici.request(url)` did,
 * so the upstream sees the same request line either way.
 */
export interface Target {
  origin: string;
  path: string;
}

// Characters a URL path and query keep as they are (dot segments are refused before this).
const PLAIN_PATH = /^\/[\w\-.~!$&()*+,;=:@/%?]*$/;
const MAX_BASES = 1000;

export function createTargets(): (base: string, path: string) => Target {
  const bases = new Map<string, { origin: string; prefix: string } | null>();
  const parseBase = (base: string) => {
    let b = bases.get(base);
    if (b === undefined) {
      const u = new URL(base);
      // Credentials, a query or a fragment in the base: leave all of it to the URL parser.
      b = u.username || u.password || u.search || u.hash ? null : { origin: u.origin, prefix: u.pathname };
      if (b && b.prefix === '/') b.prefix = '';
      if (bases.size >= MAX_BASES) bases.clear();
      bases.set(base, b);
    }
    return b;
  };
  return (base, path) => {
    const b = parseBase(base);
    if (b && PLAIN_PATH.test(path)) return { origin: b.origin, path: b.prefix + path };
    const u = new URL(base + path);
    return { origin: u.origin, path: u.search ? u.pathname + u.search : u.pathname };
  };
}
