import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { ConfigError } from '../config';
import { AddressPolicy } from './address-policy';
import { BlockedAddressError, pinnedConnector, type Resolver } from './pinned-connect';
import { refuseWebhookUrl } from './url-policy';
import { ATTEMPT_EXCERPT_BYTES, ATTEMPT_TIMEOUT_MS, MAX_REDIRECTS } from './policy';

/**
 * One webhook attempt over HTTPS with undici, safe against SSRF:
 * - every hop's host is resolved by our own lookup and every resolved address is checked against
 *   the {@link AddressPolicy} *at connection time* (IP literals are checked before connecting, and
 *   the connected socket's peer address is checked again), so DNS rebinding cannot slip past
 *   (pinned-connect.ts);
 * - at most 3 redirects are followed, each with the same signed POST, only to https:// locations;
 * - the whole attempt (all hops, connect, TLS, headers) is bounded by 10 s, after which the
 *   connection is destroyed; response bodies are drained only up to a small cap, and only the
 *   first bytes of the last one are kept (for the attempt history).
 */

export interface AttemptOutcome {
  ok: boolean;
  /** Status of the last response received, null when none arrived. */
  httpStatus: number | null;
  durationMs: number;
  /** `HTTP 500`, `timeout after 10 s`, `blocked address 10.0.0.1 (private)`, ... null on success. */
  errorMessage: string | null;
  /** Redirects followed. */
  redirects: number;
  /** Every redirect answer, in order (the last one may be the refused or one too many). */
  hops: RedirectHop[];
  /** The last response received, or null when none arrived. */
  response: CapturedResponse | null;
}

export interface RedirectHop {
  status: number;
  /** The Location header as sent (not resolved: it may be what made the hop refused). */
  location: string;
}

interface CapturedResponse {
  headers: Record<string, string | string[] | undefined>;
  /** The first `captureBytes` bytes of the body. */
  head: Buffer;
  /** Body bytes read (reading stops at `maxResponseBytes`). */
  bytes: number;
}

export type { Resolver } from './pinned-connect';

export interface SafeHttpOptions {
  /** CIDRs allowed although private (WEBHOOK_ALLOW_PRIVATE_CIDRS). */
  allowPrivateCidrs?: string | readonly string[];
  /** Extra trusted CA certificates (PEM), added to the default trust store. */
  extraCaPem?: string | Buffer;
  timeoutMs?: number;
  maxRedirects?: number;
  /** Bytes of a response body read (and discarded) before the connection is closed. */
  maxResponseBytes?: number;
  /**
   * Bytes of the last response body kept in the outcome (default 1 KB plus a margin to scrub secrets cut at the edge).
   */
  captureBytes?: number;
  /** Name resolution; defaults to the system resolver. Tests inject one to simulate DNS answers. */
  resolve?: Resolver;
  /** Max open connections per origin. */
  connectionsPerOrigin?: number;
  userAgent?: string;
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

export class SafeHttpClient {
  readonly policy: AddressPolicy;
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly maxResponseBytes: number;
  private readonly captureBytes: number;
  private readonly userAgent: string;

  constructor(opts: SafeHttpOptions = {}) {
    this.policy = new AddressPolicy(opts.allowPrivateCidrs ?? []);
    this.timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.maxRedirects = opts.maxRedirects ?? MAX_REDIRECTS;
    this.maxResponseBytes = opts.maxResponseBytes ?? 16 * 1024;
    this.captureBytes = opts.captureBytes ?? ATTEMPT_EXCERPT_BYTES + 256;
    this.userAgent = opts.userAgent ?? 'llm-gateway-webhooks/1';

    const connect = pinnedConnector(this.policy, {
      resolve: opts.resolve,
      extraCaPem: opts.extraCaPem,
      timeoutMs: this.timeoutMs,
    });
    this.agent = new Agent({
      connect,
      connections: opts.connectionsPerOrigin ?? 128,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  /**
   * Sends the POST and follows safe redirects. Never throws: every failure is an outcome.
   * `headers` are sent unchanged on every hop (the signature covers the body, not the URL).
   */
  async post(url: string, body: string | Buffer, headers: Record<string, string>): Promise<AttemptOutcome> {
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeout(this.timeoutMs)), this.timeoutMs);
    const hops: RedirectHop[] = [];
    let response: CapturedResponse | null = null;
    const done = (
      ok: boolean,
      httpStatus: number | null,
      errorMessage: string | null,
      redirects: number,
    ): AttemptOutcome => ({
      ok,
      httpStatus,
      errorMessage,
      redirects,
      hops,
      response,
      durationMs: Math.max(0, Math.round(performance.now() - started)),
    });
    const sendHeaders = { 'content-type': 'application/json', 'user-agent': this.userAgent, ...lowerKeys(headers) };
    let current: URL;
    let redirects = 0;
    let lastStatus: number | null = null;
    try {
      current = new URL(url);
    } catch {
      clearTimeout(timer);
      return done(false, null, 'invalid URL', 0);
    }
    try {
      for (;;) {
        const refusal = this.refuseUrl(current);
        if (refusal)
          return done(false, lastStatus, redirects ? `redirect not followed: ${refusal}` : refusal, redirects);
        const res = await request(current, {
          method: 'POST',
          body,
          headers: sendHeaders,
          dispatcher: this.agent,
          signal: controller.signal,
          maxRedirections: 0,
        } as Parameters<typeof request>[1]);
        lastStatus = res.statusCode;
        // Read a little (so the connection can be reused; bigger bodies just close it), keeping the head.
        response = { headers: res.headers, ...(await readHead(res.body, this.captureBytes, this.maxResponseBytes)) };
        if (res.statusCode >= 200 && res.statusCode < 300) return done(true, res.statusCode, null, redirects);
        const location = headerValue(res.headers.location);
        if (!REDIRECT_CODES.has(res.statusCode) || !location)
          return done(false, res.statusCode, `HTTP ${res.statusCode}`, redirects);
        hops.push({ status: res.statusCode, location });
        if (redirects >= this.maxRedirects)
          return done(false, res.statusCode, `too many redirects (more than ${this.maxRedirects})`, redirects);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return done(false, res.statusCode, 'redirect not followed: invalid Location', redirects);
        }
        if (next.protocol !== 'https:')
          return done(
            false,
            res.statusCode,
            `redirect not followed: ${next.protocol}// location is not HTTPS`,
            redirects,
          );
        current = next;
        redirects++;
      }
    } catch (err) {
      return done(false, lastStatus, this.describe(err, controller.signal), redirects);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Why a URL must not be requested (the webhook URL rules), or null. */
  refuseUrl(u: URL): string | null {
    return refuseWebhookUrl(u, this.policy)?.message ?? null;
  }

  private describe(err: unknown, signal: AbortSignal): string {
    if (signal.aborted && signal.reason instanceof AttemptTimeout) return signal.reason.message;
    for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
      if (e instanceof BlockedAddressError) return e.message;
    }
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e?.code ?? e?.cause?.code;
    const message = (e?.cause?.message ?? e?.message ?? String(err)).slice(0, 300);
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
      return `timeout after ${this.timeoutMs / 1000} s`;
    if (code && /CERT|SSL|TLS|VERIFY|SIGNATURE|ALTNAME|SELF_SIGNED|ERR_OSSL/i.test(code))
      return `TLS error: ${code}: ${message}`;
    return `connection error: ${code ? `${code}: ` : ''}${message}`;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`timeout after ${ms / 1000} s`);
  }
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Reads a body up to `limit` bytes (then drops the connection), keeping its first `keep` bytes. Never throws. */
async function readHead(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  keep: number,
  limit: number,
): Promise<{ head: Buffer; bytes: number }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  try {
    for await (const chunk of body) {
      bytes += chunk.length;
      if (kept < keep) {
        const part = chunk.subarray(0, keep - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (bytes >= limit) break; // leaving the loop destroys the stream and its connection
    }
  } catch {
    // a body cut short (timeout, reset) keeps what arrived; the status decides the outcome
  }
  return { head: Buffer.concat(chunks), bytes };
}
const lowerKeys = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

/**
 * The delivery client a process uses, built from its settings. A missing or unreadable CA file stops start-up naming
 * the variable.
 */
export function safeHttpClientFromConfig(config: {
  WEBHOOK_ALLOW_PRIVATE_CIDRS: string;
  WEBHOOK_CA_FILE?: string;
  WEBHOOK_ATTEMPT_TIMEOUT_MS?: number;
}): SafeHttpClient {
  let extraCaPem: Buffer | undefined;
  if (config.WEBHOOK_CA_FILE) {
    try {
      extraCaPem = readFileSync(config.WEBHOOK_CA_FILE);
    } catch (err) {
      throw new ConfigError(
        `Invalid configuration:\n  WEBHOOK_CA_FILE: cannot read ${config.WEBHOOK_CA_FILE} (${(err as Error).message})`,
      );
    }
    if (!extraCaPem.toString('utf8').includes('-----BEGIN CERTIFICATE-----'))
      throw new ConfigError(
        `Invalid configuration:\n  WEBHOOK_CA_FILE: ${config.WEBHOOK_CA_FILE} holds no PEM certificate`,
      );
  }
  return new SafeHttpClient({
    allowPrivateCidrs: config.WEBHOOK_ALLOW_PRIVATE_CIDRS,
    extraCaPem,
    timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
  });
}
