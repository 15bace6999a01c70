import { calcPrice } from '@pydantic/genai-prices';
import type { ProviderDef } from './providers';
import type { Usage } from './usage';

/**
 * Cost in USD from the @pydantic/genai-prices catalogue. Null when the model is unknown to it
 * (never guessed as 0) or the provider is self-hosted.
 */
export function costUsd(provider: ProviderDef, model: string | null, usage: Usage): number | null {
  if (!provider.pricesId || !model) return null;
  try {
    const r = calcPrice(
      {
        input_tokens: usage.promptTokens,
        output_tokens: usage.completionTokens,
        cache_read_tokens: usage.cacheReadTokens || undefined,
        cache_write_tokens: usage.cacheWriteTokens || undefined,
      },
      stripModelPrefix(provider, model),
      { providerId: provider.pricesId },
    );
    if (!r || !Number.isFinite(r.total_price)) return null;
    // numeric column: keep 10 decimals, enough for one token of the cheapest model.
    return Math.round(r.total_price * 1e10) / 1e10;
  } catch {
    // The catalogue throws on inconsistent usage (e.g. cache parts above the total): unknown cost.
    return null;
  }
}

/** Gemini answers name the model `models/gemini-…` in some places. */
function stripModelPrefix(provider: ProviderDef, model: string): string {
  return provider.slug === 'gemini' ? model.replace(/^models\//, '') : model;
}
