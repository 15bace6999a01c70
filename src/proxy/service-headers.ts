import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from '../http/errors';
import { parsePromptRef, type PromptRef } from '../prompts/ref';

/**
 * The `x-service-*` request headers: metadata for the gateway, never forwarded upstream.
 * Invalid values that would change what is stored or linked are rejected with 400 before
 * anything is sent upstream; the cache header instead degrades to "no caching" as the spec says.
 */
const SERVICE_HEADERS = {
  logBody: 'x-service-log-body',
  cache: 'x-service-cache',
  promptVersion: 'x-service-prompt-version',
  userId: 'x-service-user-id',
  sessionId: 'x-service-session-id',
  traceId: 'x-service-trace-id',
  spanId: 'x-service-span-id',
} as const;

/** `x-service-property-<name>: <value>`: custom properties, stored per request, filter and group like dimensions. */
const PROPERTY_PREFIX = 'x-service-property-';
const MAX_PROPERTIES = 20;
const PROPERTY_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const MAX_PROPERTY_VALUE = 256;

type LogBodyMode = 'full' | 'meta' | 'none';

const CACHE_DEFAULT_TTL_S = 3600;
const CACHE_MAX_TTL_S = 86_400;

export interface ServiceOptions {
  logBody: LogBodyMode;
  /** Cache TTL in seconds, or null when caching was not (validly) requested. */
  cacheTtl: number | null;
  /** Whether the caller sent the cache header at all (MISS is reported only then). */
  cacheRequested: boolean;
  promptRef: PromptRef | null;
  userId: string | null;
  sessionId: string | null;
  traceId: string | null;
  spanId: string | null;
  /** Custom properties by (lower-case) name, or null when none were sent. */
  properties: Record<string, string> | null;
}

const one = (h: IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** `true` → 3600 s; a positive integer → that many seconds capped at 86400; anything else → no caching. */
export function parseCacheTtl(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const v = raw.trim().toLowerCase();
  if (v === 'true') return CACHE_DEFAULT_TTL_S;
  if (!/^\d+$/.test(v)) return null;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) return null;
  return Math.min(n, CACHE_MAX_TTL_S);
}

function idHeader(h: IncomingHttpHeaders, name: string, max: number): string | null {
  const v = one(h, name)?.trim();
  if (!v) return null;
  if (v.length > max) throw badRequest(`${name} must be at most ${max} characters`, 'invalid_header', { header: name });
  return v;
}

/** The custom properties of a call: names are case-insensitive (HTTP header names), values trimmed. */
function parseProperties(h: IncomingHttpHeaders): Record<string, string> | null {
  let out: Record<string, string> | null = null;
  let n = 0;
  for (const header of Object.keys(h)) {
    if (!header.startsWith(PROPERTY_PREFIX)) continue;
    const name = header.slice(PROPERTY_PREFIX.length);
    if (!PROPERTY_NAME.test(name)) {
      throw badRequest(
        `${header}: a property name is 1-64 of a-z 0-9 _ . - starting with a letter or digit`,
        'invalid_property',
        { header },
      );
    }
    const value = one(h, header)!.trim();
    if (value.length > MAX_PROPERTY_VALUE)
      throw badRequest(`${header} must be at most ${MAX_PROPERTY_VALUE} characters`, 'invalid_property', { header });
    if (++n > MAX_PROPERTIES)
      throw badRequest(`at most ${MAX_PROPERTIES} ${PROPERTY_PREFIX}* headers per call`, 'too_many_properties');
    (out ??= {})[name] = value;
  }
  return out;
}

// W3C Trace Context: version-traceid-parentid-flags, lowercase hex; all-zero ids are invalid.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;

/**
 * The trace link a W3C `traceparent` header carries (OpenTelemetry's propagator writes it; HTTP
 * client instrumentation sends it on every call): trace id and parent span id as lowercase hex,
 * as OTLP ingest stores them. Malformed values are ignored, as the W3C spec asks (no 400).
 */
export function parseTraceparent(raw: string | undefined): { traceId: string; spanId: string } | null {
  const m = TRACEPARENT.exec(raw?.trim().toLowerCase() ?? '');
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[4] !== undefined)) return null;
  if (/^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return null;
  return { traceId: m[2]!, spanId: m[3]! };
}

export function parseServiceHeaders(h: IncomingHttpHeaders): ServiceOptions {
  const modeRaw = one(h, SERVICE_HEADERS.logBody);
  let logBody: LogBodyMode = 'full';
  if (modeRaw !== undefined) {
    const m = modeRaw.trim().toLowerCase();
    if (m !== 'full' && m !== 'meta' && m !== 'none') {
      throw badRequest(`${SERVICE_HEADERS.logBody} must be one of full, meta, none`, 'invalid_log_body_mode', {
        header: SERVICE_HEADERS.logBody,
      });
    }
    logBody = m;
  }
  const cacheRaw = one(h, SERVICE_HEADERS.cache);
  const promptRaw = one(h, SERVICE_HEADERS.promptVersion);
  let promptRef: PromptRef | null = null;
  if (promptRaw !== undefined) {
    promptRef = parsePromptRef(promptRaw);
    if (!promptRef) {
      throw badRequest(
        `${SERVICE_HEADERS.promptVersion} must be <name>@<version>, <name>@latest or a prompt-version UUID`,
        'invalid_prompt_version',
        { header: SERVICE_HEADERS.promptVersion },
      );
    }
  }
  return {
    logBody,
    cacheTtl: parseCacheTtl(cacheRaw),
    cacheRequested: cacheRaw !== undefined,
    promptRef,
    userId: idHeader(h, SERVICE_HEADERS.userId, 256),
    sessionId: idHeader(h, SERVICE_HEADERS.sessionId, 256),
    ...traceLink(h),
    properties: parseProperties(h),
  };
}

/**
 * `x-service-trace-id` / `x-service-span-id` when given (explicit wins), else the W3C `traceparent` (forwarded upstream
 * untouched).
 */
function traceLink(h: IncomingHttpHeaders): Pick<ServiceOptions, 'traceId' | 'spanId'> {
  const traceId = idHeader(h, SERVICE_HEADERS.traceId, 128);
  const spanId = idHeader(h, SERVICE_HEADERS.spanId, 128);
  if (traceId || spanId) return { traceId, spanId };
  return parseTraceparent(one(h, 'traceparent')) ?? { traceId: null, spanId: null };
}
