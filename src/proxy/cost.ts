import { calcPrice, type Provider } from '@pydantic/genai-prices';
import type { ProviderDef } from './providers';
import type { Usage } from './usage';

/**
 * Cost in USD from the @pydantic/genai-prices catalogue. Null when the model is unknown to it
 * (never guessed as 0) or the provider is self-hosted.
 *
 * Matching a model name against a provider's catalogue is most of calcPrice's work, so the first
 * lookup of each (provider, model) is remembered as a one-model provider; later calls price
 * against that (same result, ~5x cheaper). Each pricer keeps its own memo (one per proxy).
 */
export type ProxyPricer = (provider: ProviderDef, model: string | null, usage: Usage) => number | null;

export function createProxyPricer(): ProxyPricer {
  const narrowed = new Map<string, Provider | null>();
  return (provider, model, usage) => costWith(narrowed, provider, model, usage);
}

function costWith(narrowed: Map<string, Provider | null>, provider: ProviderDef, model: string | null, usage: Usage): number | null {
  if (!provider.pricesId || !model) return null;
  const name = provider.slug === 'gemini' ? model.replace(/^models\//, '') : model;
  const u = {
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    cache_read_tokens: usage.cacheReadTokens || undefined,
    cache_write_tokens: usage.cacheWriteTokens || undefined,
  };
  const key = `${provider.pricesId}\n${name}`;
  try {
    let narrow = narrowed.get(key);
    let r;
    if (narrow === undefined) {
      r = calcPrice(u, name, { providerId: provider.pricesId });
      narrow = r ? { ...r.provider, models: [r.model] } : null;
      if (narrowed.size > 5000) narrowed.clear();
      narrowed.set(key, narrow);
    } else if (narrow === null) {
      return null;
    } else {
      r = calcPrice(u, name, { provider: narrow });
    }
    if (!r || !Number.isFinite(r.total_price)) return null;
    // numeric(20,10): ten decimals, enough for one token of the cheapest model.
    return Math.round(r.total_price * 1e10) / 1e10;
  } catch {
    // The catalogue throws on inconsistent usage (e.g. cache parts above the total): unknown cost.
    return null;
  }
}
