import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { request } from 'undici';
import type { Config } from '../config';
import type { Keyring } from '../auth/crypto';
import { getProviderKey } from '../keys/provider-keys';
import type { ProxyPricer } from '../providers/cost';
import { applyProviderAuth, baseUrlFor, findProvider } from '../providers/providers';
import { insertRequestRows, type RequestRow } from '../requests/writer';
import { anthropicUsage, openaiUsage, type Usage } from '../providers/usage';

/**
 * The gateway calling a model itself (the eval judge, the prompt playground): the project's
 * provider key from the vault, Anthropic's Messages API or the OpenAI-compatible chat completions
 * of the other providers, optionally streamed, and the call logged as a request row of the project
 * (priced, tagged with `properties`) like any proxied call.
 */
export interface LlmDeps {
  db: Knex;
  keyring: Keyring;
  config: Config;
  pricer: ProxyPricer;
}
export interface ChatMessage {
  role: string;
  content: string;
}
export interface LlmCall {
  orgId: string;
  projectId: string;
  provider: string;
  model: string;
  messages: ChatMessage[];
  params?: Record<string, unknown>;
  /** Streams the answer: `onDelta` gets each piece of text as it arrives. */
  onDelta?: (text: string) => void;
  properties: Record<string, string>;
  traceId?: string | null;
  promptVersionId?: string | null;
}
export interface LlmResult {
  status: number;
  content: string;
  usage: Usage;
  costUsd: number | null;
  latencyMs: number;
  requestId: string;
  /** The provider's error body when status ≥ 400. */
  error: string | null;
}

/** The project has no key for that provider: nothing to retry. */
export class NoProviderKey extends Error {}

/** The fields read of a provider's JSON answer or stream event (OpenAI chat completions, Anthropic messages). */
interface ProviderJson {
  type?: string;
  choices?: { delta?: { content?: string }; message?: { content?: string } }[];
  delta?: { text?: string };
  content?: { text?: string }[];
  message?: { usage?: object };
  usage?: unknown;
}

const ZERO: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export async function callModel(deps: LlmDeps, c: LlmCall): Promise<LlmResult> {
  const p = findProvider(c.provider);
  if (!p) throw new NoProviderKey(`unknown provider ${c.provider}`);
  const key = await getProviderKey(deps.db, c.projectId, c.provider, deps.keyring);
  if (!key && p.auth !== 'none') throw new NoProviderKey(`the project has no ${c.provider} provider key`);
  const anthropic = p.slug === 'anthropic';
  const stream = Boolean(c.onDelta);
  const system = c.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
  const path = anthropic ? '/v1/messages' : '/v1/chat/completions';
  const body = anthropic
    ? {
        max_tokens: 1024,
        ...c.params,
        model: c.model,
        ...(system ? { system } : {}),
        messages: c.messages.filter((m) => m.role !== 'system'),
        stream,
      }
    : {
        ...c.params,
        model: c.model,
        messages: c.messages,
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
      };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  applyProviderAuth(p, headers, key?.apiKey ?? null);
  const started = Date.now();
  const res = await request(`${baseUrlFor(p, deps.config, key?.baseUrl)}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  let raw = '';
  let content = '';
  let usage: Usage | null = null;
  if (stream && res.statusCode < 400) {
    let buf = '';
    // Anthropic streams its usage in parts: input with message_start, output with message_delta.
    const parts: Record<string, unknown> = {};
    for await (const chunk of res.body) {
      const text = chunk.toString();
      raw += text;
      buf += text;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith('data:') || line === 'data: [DONE]') continue;
        let ev: ProviderJson;
        try {
          ev = JSON.parse(line.slice(5));
        } catch {
          continue;
        }
        const delta: string =
          ev.choices?.[0]?.delta?.content ?? (ev.type === 'content_block_delta' ? ev.delta?.text : '') ?? '';
        if (delta) {
          content += delta;
          c.onDelta!(delta);
        }
        if (anthropic) Object.assign(parts, ev.message?.usage ?? {}, ev.type === 'message_delta' ? ev.usage : {});
        usage = (anthropic ? anthropicUsage(parts) : openaiUsage(ev.usage)) ?? usage;
      }
    }
  } else {
    raw = await res.body.text();
    try {
      const a: ProviderJson = JSON.parse(raw);
      content = anthropic
        ? (a.content ?? []).map((x: { text?: string }) => x.text ?? '').join('')
        : (a.choices?.[0]?.message?.content ?? '');
      usage = anthropic ? anthropicUsage(a.usage) : openaiUsage(a.usage);
    } catch {
      // an error page: logged as is
    }
  }
  const u = usage ?? ZERO;
  const costUsd = res.statusCode < 400 ? deps.pricer(p, c.model, u) : null;
  const row: RequestRow = {
    id: randomUUID(),
    org_id: c.orgId,
    project_id: c.projectId,
    api_key_id: null,
    provider: p.slug,
    model: c.model,
    method: 'POST',
    path,
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.totalTokens,
    cache_read_tokens: u.cacheReadTokens,
    cache_write_tokens: u.cacheWriteTokens,
    cost_usd: costUsd,
    latency_ms: Date.now() - started,
    ttfb_ms: null,
    status_code: res.statusCode,
    trace_id: c.traceId ?? null,
    span_id: null,
    user_id: null,
    session_id: null,
    request_body: JSON.stringify(body),
    response_body: raw.slice(0, 1_000_000),
    log_mode: 'full',
    cache_hit: false,
    streamed: stream,
    tokens_estimated: false,
    self_hosted: p.selfHosted,
    prompt_version_id: c.promptVersionId ?? null,
    error: res.statusCode >= 400 ? `upstream ${res.statusCode}` : null,
    created_at: new Date().toISOString(),
    properties: c.properties,
    cost_saved_usd: null,
  };
  await deps.db.transaction((trx) => insertRequestRows(trx, [{ row }]));
  return {
    status: res.statusCode,
    content,
    usage: u,
    costUsd,
    latencyMs: row.latency_ms,
    requestId: row.id,
    error: res.statusCode >= 400 ? raw.slice(0, 500) : null,
  };
}
