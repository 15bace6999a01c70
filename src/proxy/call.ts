import { errors as undiciErrors } from 'undici';
import { HttpError } from '../http/errors';
import type { LogEntry } from './log-writer';
import type { ProviderDef } from '../providers/providers';
import type { ServiceOptions } from './service-headers';
import type { Usage } from '../providers/usage';

/** Response headers the gateway adds. */
export const RESPONSE_HEADERS = {
  requestId: 'x-service-request-id',
  cacheStatus: 'x-service-cache-status',
} as const;

/** One proxied call as admission leaves it for forwarding and recording. */
export interface CallState {
  id: string;
  startedAt: number; // performance.now()
  createdAt: Date;
  provider: ProviderDef;
  principal: { keyId: string; projectId: string; orgId: string };
  opts: ServiceOptions;
  method: string;
  path: string; // upstream path as logged (no credentials)
  body: Buffer;
  bodyJson: unknown;
  requestText: string;
  model: string;
  wantsStream: boolean;
  promptVersionId: string | null;
  rateLimit: LogEntry['rateLimit'];
}

/** What the recorder needs to know of the outcome of a call. */
export interface Outcome {
  status: number;
  model: string;
  usage: Usage | null;
  estimated: boolean;
  cost: number | null;
  responseText: string;
  cacheHit: boolean;
  streamed: boolean;
  ttfbMs: number | null;
  error: string | null;
}

export const zeroUsage: Usage = {
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

export function parseJsonMaybe(text: string): unknown {
  const t = text.trimStart();
  if (!t || (t[0] !== '{' && t[0] !== '[')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/**
 * The upstream path and query from the raw URL (byte-exact, no re-encoding), minus the
 * `/proxy/<slug>` prefix. Dot segments are refused so a path cannot climb out of a base URL's
 * prefix; Gemini's `key` query parameter (a credential) is removed.
 */
export function upstreamPathOf(originalUrl: string, provider: ProviderDef): string {
  const afterProxy = originalUrl.indexOf('/', '/proxy/'.length);
  let rest = afterProxy === -1 ? '/' : originalUrl.slice(afterProxy);
  const q = rest.indexOf('?');
  const pathPart = q === -1 ? rest : rest.slice(0, q);
  // Without '%' the path is its own decoding, and without '.' it has no dot segment: the common
  // case skips both the decode and the split.
  if (pathPart.includes('%') || pathPart.includes('.')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathPart);
    } catch {
      throw new HttpError(400, 'invalid_path', 'The upstream path is not valid percent-encoding');
    }
    if (decoded.split(/[/\\]/).some((seg) => seg === '..' || seg === '.')) {
      throw new HttpError(400, 'invalid_path', 'The upstream path must not contain dot segments');
    }
  }
  if (q !== -1 && provider.slug === 'gemini') {
    const params = new URLSearchParams(rest.slice(q + 1));
    if (params.has('key')) {
      params.delete('key');
      const qs = params.toString();
      rest = pathPart + (qs ? `?${qs}` : '');
    }
  }
  return rest;
}

export function classifyUpstreamError(
  err: unknown,
  aborted: boolean,
): { status: number; code: string; message: string } {
  if (aborted) return { status: 499, code: 'client_closed', message: 'The client closed the connection' };
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return { status: 504, code: 'upstream_timeout', message: 'The provider did not answer in time' };
  }
  if (err instanceof undiciErrors.ConnectTimeoutError) {
    return {
      status: 502,
      code: 'upstream_unreachable',
      message: 'Could not connect to the provider (connect timeout)',
    };
  }
  const code = (err as { code?: string })?.code;
  return {
    status: 502,
    code: 'upstream_unreachable',
    message: `Could not reach the provider${code ? ` (${code})` : ''}`,
  };
}
