import type { Config } from '../config';

/**
 * The ten upstream providers the proxy speaks to. Everything provider-specific lives here:
 * default address (overridable by `PROVIDER_<SLUG>_BASE_URL`), how the stored provider key is
 * sent, which headers carry a caller's key in that provider's SDK, how the usage of a response
 * is read, and which @pydantic/genai-prices provider prices it.
 */
export type ProviderSlug =
  'openai' | 'anthropic' | 'gemini' | 'mistral' | 'groq' | 'deepseek' | 'xai' | 'together' | 'openrouter' | 'ollama';

/** Response shapes we know how to read usage from. */
export type UsageDialect = 'openai' | 'anthropic' | 'gemini' | 'ollama';

export interface ProviderDef {
  slug: ProviderSlug;
  name: string;
  configKey: keyof Config & `PROVIDER_${string}_BASE_URL`;
  /** How the stored provider key is attached to the upstream request. */
  auth: 'bearer' | 'anthropic' | 'gemini' | 'none';
  /** Default usage dialect; ollama switches to the OpenAI dialect on its /v1 paths. */
  dialect: UsageDialect;
  /** @pydantic/genai-prices provider id; null for self-hosted runtimes (cost not computed). */
  pricesId: string | null;
  selfHosted: boolean;
}

const def = (d: ProviderDef) => d;

export const providers: Record<ProviderSlug, ProviderDef> = {
  openai: def({
    slug: 'openai',
    name: 'OpenAI',
    configKey: 'PROVIDER_OPENAI_BASE_URL',
    auth: 'bearer',
    dialect: 'openai',
    pricesId: 'openai',
    selfHosted: false,
  }),
  anthropic: def({
    slug: 'anthropic',
    name: 'Anthropic',
    configKey: 'PROVIDER_ANTHROPIC_BASE_URL',
    auth: 'anthropic',
    dialect: 'anthropic',
    pricesId: 'anthropic',
    selfHosted: false,
  }),
  gemini: def({
    slug: 'gemini',
    name: 'Google Gemini',
    configKey: 'PROVIDER_GEMINI_BASE_URL',
    auth: 'gemini',
    dialect: 'gemini',
    pricesId: 'google',
    selfHosted: false,
  }),
  mistral: def({
    slug: 'mistral',
    name: 'Mistral',
    configKey: 'PROVIDER_MISTRAL_BASE_URL',
    auth: 'bearer',
    dialect: 'openai',
    pricesId: 'mistral',
    selfHosted: false,
  }),
  groq: def({
    slug: 'groq',
    name: 'Groq',
    configKey: 'PROVIDER_GROQ_BASE_URL',
    auth: 'bearer',
    dialect: 'openai',
    pricesId: 'groq',
    selfHosted: false,
  }),
  deepseek: def({
    slug: 'deepseek',
    name: 'DeepSeek',
    configKey: 'PROVIDER_DEEPSEEK_BASE_URL',
    auth: 'bearer',
    dialect: 'openai',
    pricesId: 'deepseek',
    selfHosted: false,
  }),
  xai: def({
    slug: 'xai',
    name: 'xAI',
    configKey: 'PROVIDER_XAI_BASE_URL',
    auth: 'bearer',
    dialect: 'openai',
    pricesId: 'x-ai',
    selfHosted: false,
  }),
  together: def({
    slug: 'together',
    name: 'Together AI',
    configKey: 'PROVIDER_TOGETHER_BASE_URL',
    auth: 'bearer',
    dialect: 'openai',
    pricesId: 'together',
    selfHosted: false,
  }),
  openrouter: def({
    slug: 'openrouter',
    name: 'OpenRouter',
    configKey: 'PROVIDER_OPENROUTER_BASE_URL',
    auth: 'bearer',
    dialect: 'openai',
    pricesId: 'openrouter',
    selfHosted: false,
  }),
  ollama: def({
    slug: 'ollama',
    name: 'Ollama (self-hosted)',
    configKey: 'PROVIDER_OLLAMA_BASE_URL',
    auth: 'none',
    dialect: 'ollama',
    pricesId: null,
    selfHosted: true,
  }),
};

export const providerSlugs = Object.keys(providers) as ProviderSlug[];

export function findProvider(slug: string): ProviderDef | undefined {
  return Object.prototype.hasOwnProperty.call(providers, slug) ? providers[slug as ProviderSlug] : undefined;
}

const ANTHROPIC_DEFAULT_VERSION = '2023-06-01';

/**
 * The upstream base URL. Only self-hosted runtimes (ollama) take the address stored with the
 * project's provider key entry: letting tenants re-point a public provider would let them aim
 * the gateway at arbitrary hosts with the server's trust.
 */
export function baseUrlFor(p: ProviderDef, config: Config, storedBaseUrl: string | null | undefined): string {
  const base = p.selfHosted && storedBaseUrl ? storedBaseUrl : config[p.configKey];
  return base.replace(/\/+$/, '');
}

/** Usage dialect for one call: ollama's OpenAI-compatible endpoints answer in the OpenAI shape. */
export function dialectFor(p: ProviderDef, upstreamPath: string): UsageDialect {
  if (p.slug === 'ollama' && /^\/v1\//.test(upstreamPath)) return 'openai';
  return p.dialect;
}

/** Sets the provider credential on the outgoing header object (names lowercase). */
export function applyProviderAuth(
  p: ProviderDef,
  headers: Record<string, string | string[]>,
  apiKey: string | null,
): void {
  switch (p.auth) {
    case 'bearer':
      if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
      return;
    case 'anthropic':
      if (apiKey) headers['x-api-key'] = apiKey;
      if (!headers['anthropic-version']) headers['anthropic-version'] = ANTHROPIC_DEFAULT_VERSION;
      return;
    case 'gemini':
      if (apiKey) headers['x-goog-api-key'] = apiKey;
      return;
    case 'none':
      // A self-hosted runtime usually has no auth; when a key is stored (e.g. behind an auth proxy) send it as Bearer.
      if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
      return;
  }
}

/**
 * Model named by the call: the request body's `model`, or for Gemini the path segment
 * `models/<model>:<method>`.
 */
export function requestModel(p: ProviderDef, upstreamPath: string, body: unknown): string | null {
  if (body && typeof body === 'object' && typeof (body as { model?: unknown }).model === 'string') {
    return (body as { model: string }).model;
  }
  if (p.slug === 'gemini') {
    const m = /\/models\/([^/:?]+)/.exec(upstreamPath);
    if (m) return decodeURIComponent(m[1]!);
  }
  return null;
}

/** Whether the request asks for a streamed answer (never cached). */
export function requestWantsStream(p: ProviderDef, upstreamPath: string, body: unknown): boolean {
  if (p.slug === 'gemini' && /:streamGenerateContent\b/.test(upstreamPath)) return true;
  const stream = body && typeof body === 'object' ? (body as { stream?: unknown }).stream : undefined;
  if (stream === true) return true;
  // Ollama's native chat/generate endpoints stream unless told not to.
  if (p.slug === 'ollama' && /^\/api\/(chat|generate)\b/.test(upstreamPath) && stream !== false) return true;
  return false;
}
