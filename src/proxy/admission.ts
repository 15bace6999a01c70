import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { HttpError, notFound } from '../http/errors';
import type { Keyring } from '../auth/crypto';
import { getProviderKey } from '../keys/provider-keys';
import { resolvePromptRef } from '../prompts/service';
import { admit, loadRateLimitConfig, rateLimited } from '../rate-limits/admission';
import { cacheKey, cacheLookup, type CachedResponse } from './cache';
import type { ProxyCaches } from './caches';
import { NO_LIMIT } from './caches';
import { parseJsonMaybe, RESPONSE_HEADERS, upstreamPathOf, type CallState } from './call';
import { headerValue, upstreamRequestHeaders } from './headers';
import type { Upstream } from './forward';
import {
  applyProviderAuth,
  baseUrlFor,
  requestModel,
  requestWantsStream,
  type ProviderDef,
} from '../providers/providers';
import { readRawBody, requestBodyText } from './request-body';
import type { ServiceOptions } from './service-headers';

export interface AdmissionDeps {
  db: Db;
  config: Config;
  keyring: Keyring;
  caches: ProxyCaches;
  bodyLimit: number;
}

export type Admitted = { call: CallState; limitHeaders: Record<string, string> } & (
  { kind: 'hit'; hit: CachedResponse } | { kind: 'forward'; upstream: Upstream }
);

/**
 * Everything a call must pass before it goes upstream, in this order: the body (size cap), the
 * prompt version, the project's provider key, the end user's rate limit (last, so a call refused
 * for another reason never uses quota), then the response cache.
 */
export function createAdmission({ db, config, keyring, caches, bodyLimit }: AdmissionDeps) {
  return async function admitCall(
    req: Request,
    provider: ProviderDef,
    principal: CallState['principal'],
    opts: ServiceOptions,
    startedAt: number,
  ): Promise<Admitted> {
    const upstreamPath = upstreamPathOf(req.originalUrl, provider);
    const body = await readRawBody(req, bodyLimit);
    const { text: requestText, binary } = requestBodyText(
      body,
      req.headers['content-type'],
      headerValue(req.headers['content-encoding']),
    );
    const bodyJson = !binary ? parseJsonMaybe(requestText) : undefined;
    const call: CallState = {
      id: randomUUID(),
      startedAt,
      createdAt: new Date(),
      provider,
      principal,
      opts,
      method: req.method,
      path: upstreamPath,
      body,
      bodyJson,
      requestText,
      model: requestModel(provider, upstreamPath, bodyJson) ?? '',
      wantsStream: requestWantsStream(provider, upstreamPath, bodyJson),
      promptVersionId: null,
      rateLimit: undefined,
    };
    const { projectId, keyId } = principal;

    if (opts.promptRef) {
      const v = await resolvePromptRef(db, [projectId], opts.promptRef);
      if (!v) throw notFound('Prompt version', 'prompt_version_not_found');
      call.promptVersionId = v.id;
    }

    const keyEntry = await caches.providerKeys.get(`${projectId}:${provider.slug}`, () =>
      getProviderKey(db, projectId, provider.slug, keyring),
    );
    if (!keyEntry || (!keyEntry.apiKey && !provider.selfHosted)) {
      throw new HttpError(
        424,
        'provider_key_missing',
        `No ${provider.name} key is stored for this project: add one with POST /api/v1/provider-keys`,
        {
          provider: provider.slug,
        },
      );
    }

    let limitHeaders: Record<string, string> = {};
    if (opts.userId) {
      const found = await caches.rateLimits.get(
        projectId,
        async () => (await loadRateLimitConfig(db, projectId)) ?? NO_LIMIT,
      );
      const cfg = found && !('none' in found) ? found : null;
      if (cfg) {
        const d = await admit(db, projectId, opts.userId, cfg);
        if (!d.allowed) throw rateLimited(d.headers, cfg);
        limitHeaders = d.headers;
        call.rateLimit = { projectId, userId: opts.userId, windowStart: d.windowStart };
      }
    }

    const key =
      opts.cacheTtl !== null && !call.wantsStream
        ? cacheKey({ apiKeyId: keyId, method: req.method, provider: provider.slug, path: upstreamPath, body })
        : null;
    if (key) {
      const hit = await cacheLookup(db, key);
      if (hit) return { kind: 'hit', call, hit, limitHeaders };
    }

    const headers = upstreamRequestHeaders(req.headers);
    applyProviderAuth(provider, headers, keyEntry.apiKey);
    const extra: Record<string, string> = { ...limitHeaders, [RESPONSE_HEADERS.requestId]: call.id };
    if (opts.cacheTtl !== null) extra[RESPONSE_HEADERS.cacheStatus] = 'MISS';
    return {
      kind: 'forward',
      call,
      limitHeaders,
      upstream: {
        base: baseUrlFor(provider, config, keyEntry.baseUrl),
        path: upstreamPath,
        headers,
        extra,
        cacheKey: key,
      },
    };
  };
}
